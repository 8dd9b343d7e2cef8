/**
 * The evidence a page carries: the latest few failed calls of the group's keys, each with
 * the provider's request id, time and status — what on-call pastes into a provider ticket.
 */
import { redactText } from '@breakerbox/protocol';
import type { SamplesPart } from '../storage/storage.ts';

/** One failed call as a page shows it. */
export interface PageSample {
  /** When it failed (ISO 8601, UTC). */
  at: string;
  status: number | null;
  error_class: string | null;
  /** The provider's error type or code (`overloaded_error`, `rate_limit_exceeded`). */
  provider_error: string | null;
  upstream_request_id: string | null;
  /** `service/instance` that saw it. */
  from: string;
}

/** Redacted again on the way out: a row stored before the collector redacted evidence at ingest. */
const providerError = (e: string | undefined): string | null => (e === undefined ? null : redactText(e));

/** Samples a page carries at most. */
export const PAGE_SAMPLES = 3;
/** How far back a page looks for them. */
export const PAGE_SAMPLES_LOOKBACK_MS = 15 * 60_000;
/** Keys of a group whose samples are read (the lead alerts' keys). */
const MAX_KEYS = 3;

/** The latest failed calls (not slow ones) of `keyIds`, newest first, at most `PAGE_SAMPLES`. */
export async function pageSamples(samples: SamplesPart, keyIds: readonly number[], now: number): Promise<PageSample[]> {
  const found = [];
  for (const keyId of [...new Set(keyIds)].slice(0, MAX_KEYS)) {
    // Twice the page's share: slow successes are read and skipped.
    found.push(...(await samples.forKey(keyId, { from: now - PAGE_SAMPLES_LOOKBACK_MS, to: now + 1, limit: PAGE_SAMPLES * 2 })));
  }
  return found
    .filter((r) => r.sample.outcome === 'error')
    .sort((a, b) => b.ts - a.ts)
    .slice(0, PAGE_SAMPLES)
    .map((r) => ({
      at: new Date(r.ts).toISOString(),
      status: r.sample.status ?? null,
      error_class: r.sample.error_class ?? null,
      provider_error: providerError(r.sample.error_type ?? r.sample.error_code),
      upstream_request_id: r.sample.upstream_request_id ?? null,
      from: `${r.service}/${r.instance}`,
    }));
}

/** "503 overloaded_error, request id req_…, 2026-12-02T10:04:12Z from drafts/pod-3": one line per sample. */
export function sampleLine(s: PageSample): string {
  const what = [s.status, s.provider_error ?? s.error_class].filter((x) => x !== null).join(' ');
  return `${what}${s.upstream_request_id ? `, request id ${s.upstream_request_id}` : ''}, ${s.at.replace(/\.\d{3}Z$/, 'Z')} from ${s.from}`;
}

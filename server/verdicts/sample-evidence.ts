/**
 * The failed calls a verdict's evidence cites (issue 27): for keys whose verdict blames the
 * provider or whose clients are degraded, up to three of the latest failed samples, each a
 * sentence on-call can paste into a provider ticket. Read in one bounded query for just
 * those keys, after every verdict is decided, so the engine's cost over many healthy keys
 * does not change.
 */
import type { SamplesPart, StoredSample } from '../storage/storage.ts';
import { clockTime } from './evidence.ts';
import type { Decision } from './rules.ts';
import type { ClientFigures } from './types.ts';
import type { TimeRange } from './window.ts';

/** Samples cited per key at most. */
export const EVIDENCE_SAMPLES = 3;

const BLAMES_PROVIDER: ReadonlySet<Decision['verdict']> = new Set(['provider_outage', 'provider_suspected', 'provider_degraded']);

/** Whether a key's evidence cites samples: its verdict blames the provider, or its clients are degraded. */
export function citesSamples(d: Decision, c: ClientFigures): boolean {
  return BLAMES_PROVIDER.has(d.verdict) || c.degraded;
}

/** "sample: 503 overloaded_error, request id req_…, 10:04:12 UTC from drafts/pod-3". */
export function sampleSentence(s: StoredSample): string {
  const x = s.sample;
  const what = [x.status, x.error_type ?? x.error_code ?? x.error_class].filter((v) => v !== undefined).join(' ') || 'failed';
  return `sample: ${what}${x.upstream_request_id ? `, request id ${x.upstream_request_id}` : ''}, ${clockTime(s.ts)} from ${s.service}/${s.instance}`;
}

/** One key's place in the evidence: its id and the evidence list to extend. */
export interface CitingKey {
  keyId: number;
  evidence: string[];
}

/**
 * Adds the sample sentences of `keys` to their evidence, before the closing "why not" line.
 * `samples` absent (a storage without them): the evidence stays as it is.
 */
export async function citeSamples(samples: SamplesPart | undefined, keys: readonly CitingKey[], range: TimeRange): Promise<void> {
  if (!samples || keys.length === 0) return;
  const found = await samples.latestFailed(keys.map((k) => k.keyId), range.from, range.to + 1, EVIDENCE_SAMPLES);
  for (const k of keys) {
    const lines = (found.get(k.keyId) ?? []).map(sampleSentence);
    if (lines.length === 0) continue;
    const at = k.evidence.findIndex((l) => l.startsWith('why not '));
    k.evidence.splice(at < 0 ? k.evidence.length : at, 0, ...lines);
  }
}

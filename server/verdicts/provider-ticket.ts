/**
 * The provider ticket (issue 27): a plain-text summary of an incident a provider's support
 * can act on — which models and regions, since when (UTC), errors by status and provider
 * error code, a dozen request ids with their times, and which of our probe locations saw it.
 * Nothing of ours they should not see: no service or instance names unless asked for.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { StoredSample } from '../storage/storage.ts';
import type { TimeRange } from './window.ts';

/** What the ticket is built from, per key of the incident. */
export interface TicketKey {
  key: BreakerKey;
  verdict: string;
  /** The key's failed-call samples in the window, any order. */
  samples: StoredSample[];
  /** Per probe location: failed probes, probes, and the first and last failure. */
  probes: {
    location: string; failed: number; total: number; firstFailed: number | null; lastFailed: number | null;
    /** The latest failed probes' request ids (at most `TICKET_PROBE_IDS`), newest first. */
    requestIds: TicketProbeId[];
  }[];
}

/** A failed probe's request id as the ticket lists it. */
export interface TicketProbeId {
  ts: number;
  id: string;
  status: number | null;
  /** The provider's error type or code, else our error class. */
  error: string | null;
}

/** Request ids listed per probe location and model at most. */
export const TICKET_PROBE_IDS = 3;

/** Request ids listed at most. */
export const TICKET_REQUEST_IDS = 12;

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const minutes = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** The ticket text. `withSources` adds the service/instance each sample came from. */
export function providerTicket(keys: TicketKey[], range: TimeRange, now: number, withSources = false): string {
  const failed = keys.flatMap((k) => k.samples.filter((s) => s.sample.outcome === 'error').map((s) => ({ ...s, key: k.key })));
  failed.sort((a, b) => a.ts - b.ts);
  const providers = [...new Set(keys.map((k) => k.key.provider))].join(', ');
  const lines: string[] = [];
  lines.push(`Incident report for ${providers} support`, `Generated ${utc(now)} (all times UTC), covering ${utc(range.from)} to ${utc(range.to)}.`, '');
  lines.push('Affected models:');
  for (const k of keys) lines.push(`- ${k.key.model} (${k.key.endpoint}${k.key.region ? `, region ${k.key.region}` : ''}): ${k.verdict.replaceAll('_', ' ')}`);
  lines.push('');
  if (failed.length > 0) {
    const first = failed[0]!.ts;
    const last = failed.at(-1)!.ts;
    lines.push(`Failed calls seen from ${utc(first)} to ${utc(last)} (${minutes(last - first)}), ${failed.length} sampled.`, '');
    const counts = new Map<string, number>();
    for (const f of failed) {
      const label = [f.sample.status ?? 'no status', f.sample.error_code ?? f.sample.error_type ?? f.sample.error_class].filter(Boolean).join(' ');
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    lines.push('Sampled errors by HTTP status and provider error code:');
    for (const [label, n] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) lines.push(`- ${label}: ${n}`);
    lines.push('');
    const withIds = failed.filter((f) => f.sample.upstream_request_id).slice(-TICKET_REQUEST_IDS).reverse();
    lines.push(`Request ids (latest ${withIds.length}):`);
    for (const f of withIds) {
      const s = f.sample;
      const what = [s.status, s.error_type ?? s.error_code ?? s.error_class].filter((x) => x !== undefined).join(' ');
      lines.push(`- ${utc(f.ts)}  ${f.key.model}  ${what}  ${s.upstream_request_id}${withSources ? `  (${f.service}/${f.instance})` : ''}`);
    }
  } else {
    lines.push('No failed call was sampled in this window.');
  }
  lines.push('');
  const probed = keys.flatMap((k) => k.probes.filter((p) => p.total > 0).map((p) => ({ ...p, model: k.key.model })));
  if (probed.length > 0) {
    lines.push('Independent probes (small real requests from our probe locations):');
    for (const p of probed) {
      lines.push(`- ${p.location}, ${p.model}: ${p.failed} of ${p.total} failed${p.firstFailed !== null ? `, first at ${utc(p.firstFailed)}, last at ${utc(p.lastFailed!)}` : ''}`);
      for (const r of p.requestIds) lines.push(`  - ${utc(r.ts)}  ${[r.status, r.error].filter((x) => x !== null).join(' ')}  ${r.id}`);
    }
  } else {
    lines.push('No probe location covers these models.');
  }
  return `${lines.join('\n')}\n`;
}

import type { ErrorClass } from '@breakerbox/protocol';
import { CLIENT_CLASSES, PROVIDER_CLASSES } from './counters.ts';
import type { VerdictThresholds } from './figures.ts';
import { failureMix, probeSide, recoveredLocations, type Decision } from './rules.ts';
import type { ClientFigures, ProbeFigures } from './types.ts';

/** A share as a percentage an engineer reads: "41%", "0.4%", "<0.1%". */
export function pct(x: number | null): string {
  if (x === null) return 'n/a';
  const v = x * 100;
  if (v > 0 && v < 0.1) return '<0.1%';
  return `${v >= 10 || v === 0 ? Math.round(v) : Number(v.toFixed(1))}%`;
}

/** A count with thousands separators. */
export const num = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "a", "a and b", "a, b and c". */
export function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const plural = (n: number, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

function classList(errors: Record<ErrorClass, number>, classes: readonly ErrorClass[]): string {
  return classes
    .filter((c) => errors[c] > 0)
    .sort((a, b) => errors[b] - errors[a])
    .map((c) => `${c} ${num(errors[c])}`)
    .join(', ');
}

/** Sentences about the client side, with the figures the verdict used. */
function clientSentences(c: ClientFigures, t: VerdictThresholds, stateText: string | null): string[] {
  const out: string[] = [];
  const where = `on ${plural(c.instances, 'instance')}${c.services > 1 ? ` of ${plural(c.services, 'service')}` : ''}`;
  if (c.calls === 0) out.push(`clients: no calls in the window${c.instances ? ` (${plural(c.instances, 'instance')} reporting)` : ''}`);
  else if (c.failed === 0) out.push(`clients: ${plural(c.calls, 'call')} ${where}, none failed`);
  else {
    const parts: string[] = [];
    const provider = classList(c.errors, PROVIDER_CLASSES);
    const client = classList(c.errors, CLIENT_CLASSES);
    if (provider) parts.push(`provider-side ${pct(c.provider_error_share)}: ${provider}`);
    if (client) parts.push(`client-fault ${pct(c.client_error_share)}: ${client}`);
    out.push(`clients: ${pct(c.error_share)} of ${plural(c.calls, 'call')} failed ${where} (${parts.join('; ')})`);
  }
  if (c.calls > 0 && c.calls < t.min_calls) out.push(`clients: only ${plural(c.calls, 'call')}, fewer than the ${num(t.min_calls)} needed to judge`);
  if (c.slow > 0) out.push(`clients: ${pct(c.slow_share)} of calls slow (${num(c.slow)} over the latency ceiling), p95 ${c.latency_ms.p95 ?? 'n/a'} ms`);
  if (c.rejected > 0) {
    out.push(`clients: ${plural(c.rejected, 'bulkhead rejection')} (${pct(c.rejection_share)} of attempts), p95 latency ${c.latency_ms.p95 ?? 'n/a'} ms`);
  }
  if ((c.open_share ?? 0) > 0 || c.opens > 0) {
    out.push(
      `clients: breaker open ${pct(c.open_share)} of instance-time, ${plural(c.opens, 'open')} (${c.opens_per_hour}/h)${stateText ? `; now ${stateText}` : ''}`,
    );
  }
  if ((c.retry_ratio ?? 0) >= Math.min(0.1, t.retry_storm_ratio)) {
    out.push(`clients: ${plural(c.retries, 'retry')} over ${plural(c.calls, 'call')} (retry ratio ${c.retry_ratio})`.replace('retrys', 'retries'));
  }
  if (c.fallback.failed > 0) out.push(`clients: ${num(c.fallback.failed)} of ${num(c.fallback.invoked)} fallback invocations failed`);
  if (c.degraded) {
    const why: string[] = [];
    if ((c.open_share ?? 0) > t.degraded_open_share) why.push(`open share ${pct(c.open_share)} > ${pct(t.degraded_open_share)}`);
    if (c.calls >= t.min_calls) {
      if ((c.error_share ?? 0) >= t.degraded_error_share) why.push(`error share ${pct(c.error_share)} ≥ ${pct(t.degraded_error_share)}`);
      if ((c.slow_share ?? 0) >= t.degraded_slow_share) why.push(`slow share ${pct(c.slow_share)} ≥ ${pct(t.degraded_slow_share)}`);
      if ((c.rejection_share ?? 0) >= t.degraded_rejection_share) {
        why.push(`rejection share ${pct(c.rejection_share)} ≥ ${pct(t.degraded_rejection_share)}`);
      }
    }
    out.push(`clients degraded: ${why.join(', ')}`);
  }
  return out;
}

/** Sentences about the probes, grouped by location status. */
function probeSentences(probes: Record<string, ProbeFigures>, t: VerdictThresholds): string[] {
  const side = probeSide(probes);
  const group = (locations: string[]) => {
    const n = locations.reduce((a, l) => a + probes[l]!.recent.probes, 0);
    const ok = locations.reduce((a, l) => a + probes[l]!.recent.probes - probes[l]!.recent.failed, 0);
    return `${num(ok)} of ${num(n)} recent ok from ${list(locations)}`;
  };
  const out: string[] = [];
  if (Object.keys(probes).length === 0) return ['probes: none in the window'];
  const parts: string[] = [];
  if (side.failing.length) parts.push(group(side.failing));
  if (side.ok.length) parts.push(group(side.ok));
  if (parts.length) out.push(`probes: ${parts.join('; ')}`);
  for (const l of recoveredLocations(probes, t)) {
    const f = probes[l]!;
    out.push(`probes from ${l} failed ${num(f.error - f.misconfigured + f.slow)} of ${num(f.probes)} in the window but the most recent are ok: the outage is ending`);
  }
  for (const l of side.misconfigured) {
    const f = probes[l]!;
    out.push(`probes from ${l} look misconfigured: ${num(f.recent.failed)} of ${num(f.recent.probes)} recent probes failed, ${num(f.misconfigured)} in the window with bad_request/auth`);
  }
  for (const l of side.insufficient) {
    out.push(`probes: only ${num(probes[l]!.recent.probes)} recent from ${l} (${num(t.min_probes)} needed)`);
  }
  return out;
}

/** The sentence that explains the hint. */
function hintSentence(d: Decision, c: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds): string | null {
  const mix = failureMix(c);
  const side = probeSide(probes);
  switch (d.hint) {
    case 'client_errors':
      return `hint client_errors: ${pct(mix.clientFault)} of failures are bad_request/auth/context_length/policy (≥ ${pct(t.hint_dominant_share)})`;
    case 'quota':
      return `hint quota: ${pct(mix.quota)} of failures are quota/rate_limit while the probes are served`;
    case 'retry_storm':
      return `hint retry_storm: retry ratio ${c.retry_ratio} ≥ ${t.retry_storm_ratio}`;
    case 'capacity':
      return `hint capacity: ${pct(c.rejection_share)} of attempts rejected by the bulkhead while only ${pct(c.slow_share)} of calls were slow`;
    case 'local':
      return `hint local: degraded on ${list(d.local!.degraded)} only; healthy on ${list(d.local!.healthy)}`;
    case 'regional':
      return `hint regional: probes failing from ${list(side.failing)}, fine from ${list(side.ok)}`;
    case 'probe_misconfigured':
      return `hint probe_misconfigured: probes from ${list(side.misconfigured)} fail with bad_request/auth — fix the probe, it says nothing about the provider`;
    case 'no_probes':
      return 'hint no_probes: no location has enough recent probes for this key — configure the prober to cover it';
    case 'low_volume':
      return `hint low_volume: ${plural(c.calls, 'call')} is below the ${num(t.min_calls)} needed to judge the clients`;
    default:
      return null;
  }
}

const VERDICT_TEXT: Record<Decision['verdict'], string> = {
  provider_outage: 'clients degraded and probes failing: the provider is down — wait it out, fail over',
  self_inflicted: 'clients degraded while probes are fine: look at our side',
  provider_degraded: 'probes failing while clients are fine: early warning, not felt yet',
  healthy: 'clients and probes healthy',
  insufficient_data: 'not enough data to decide',
};

/** Every sentence behind a verdict, in reading order: verdict, clients, probes, hint. */
export function evidence(d: Decision, c: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds, stateText: string | null): string[] {
  const hint = hintSentence(d, c, probes, t);
  return [`${d.verdict}: ${VERDICT_TEXT[d.verdict]}`, ...clientSentences(c, t, stateText), ...probeSentences(probes, t), ...(hint ? [hint] : [])];
}

/**
 * The words of the latency judgement (issue 36): what the clients and each probe location
 * took against their baselines, for the `slow` and latency `traffic_shape` hints, and the
 * phrases that speak of slowness instead of errors when no call failed.
 */
import type { Decision } from './rules.ts';
import { slowCallShare, slowLocations, type LatencyJudgement, type LocationPace } from './slow-probes.ts';
import { list, num, pct } from './text.ts';
import type { ClientFigures } from './types.ts';

/** "6.9 s", "0.8 s", "60 ms": a latency as an engineer reads it. */
export function seconds(ms: number | null): string {
  if (ms === null) return 'n/a';
  if (ms < 100) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** "24 h", "90 min": the baseline's lookback. */
export const span = (s: number): string => (s % 3600 === 0 ? `${s / 3600} h` : `${Math.round(s / 60)} min`);

/** True when nothing failed: the clients' trouble is slowness or shedding only, and no sentence may speak of errors. */
export const noFailure = (c: ClientFigures): boolean => c.failed === 0;

/** "from eu-west in 6.9 s p50 against 0.8 s over the previous 24 h (9×, 360 probes)". */
function paceText(l: LocationPace, j: LatencyJudgement, first: boolean): string {
  const against = l.baseline_p50 !== null
    ? ` against ${seconds(l.baseline_p50)}${first ? ` over the previous ${span(j.lookback_s)}` : ''} (${l.baseline_p50 > 0 && l.p50 !== null ? `${Number((l.p50 / l.baseline_p50).toFixed(1))}×, ` : ''}${num(l.baseline_probes)} probes)`
    : ` (no baseline: ${num(l.baseline_probes)} probes before the window)`;
  const ceiling = l.over_ceiling && j.ceiling_ms !== null ? `, over the clients' ${seconds(j.ceiling_ms)} ceiling` : '';
  return `from ${l.location} in ${seconds(l.p50)} p50${against}${ceiling}`;
}

/** "from eu-west in 6.9 s p50 against 0.8 s over the previous 24 h (9×, 360 probes), from us-east in …". */
export function probePaces(j: LatencyJudgement, locations: string[]): string {
  const of = j.locations.filter((l) => locations.includes(l.location));
  return of.map((l, i) => paceText(l, j, i === 0)).join(', ');
}

/** "the clients' calls take 1.6 s p50, 15.7 s p95; 28% slow or timed out over their 5 s ceiling; 504 bulkhead rejections (30% of attempts); 22 breaker opens on slow_calls". */
export function clientPace(c: ClientFigures, j: LatencyJudgement): string {
  const parts = [`the clients' calls take ${seconds(c.latency_ms.p50)} p50, ${seconds(c.latency_ms.p95)} p95`];
  const slow = slowCallShare(c);
  if (slow > 0) parts.push(`${pct(slow)} ${(c.errors.timeout ?? 0) > 0 ? 'slow or timed out' : 'slow'}${j.ceiling_ms !== null ? ` over their ${seconds(j.ceiling_ms)} ceiling` : ''}`);
  if (c.rejected > 0) parts.push(`${num(c.rejected)} bulkhead rejection${c.rejected === 1 ? '' : 's'} (${pct(c.rejection_share)} of attempts)`);
  if (j.slow_opens > 0) parts.push(`${num(j.slow_opens)} breaker open${j.slow_opens === 1 ? '' : 's'} on slow_calls`);
  return parts.join('; ');
}

/** The `slow` hint's sentence. */
export function slowHintSentence(d: Decision, c: ClientFigures): string {
  const j = d.latency!;
  const slow = slowLocations(j);
  const usual = j.locations.filter((l) => l.pace !== 'slow').map((l) => l.location);
  const rest = usual.length ? `; probes answer ${probePaces(j, usual)} — their usual latency` : '';
  const where = usual.length ? ` from ${list(slow)} only, not failing: fail over to another region or provider, tell the provider` : ', not failing: fail over, tell the provider';
  return `hint slow: probes answer ${probePaces(j, slow)}${rest}; ${clientPace(c, j)} — the provider is slow${where}`;
}

/** The latency `traffic_shape` hint's sentence: slow clients, probes at their baseline. */
export function shapeHintSentence(d: Decision, c: ClientFigures): string {
  const j = d.latency!;
  return `hint traffic_shape: probes answer ${probePaces(j, j.locations.map((l) => l.location))} — at their usual latency — while ${clientPace(c, j)}: the provider serves small requests as fast as ever, so the slowness is in requests shaped like ours (prompt and output size, streaming, parameters) or in our network path to it — look at our side first, then tell the provider`;
}

/** The verdict sentence of a latency decision, or null when the decision is not one. */
export function latencyVerdictText(d: Decision, c: ClientFigures): string | null {
  if (d.hint === 'slow') {
    return d.verdict === 'provider_outage'
      ? 'clients slow and the probes answering far slower than their baseline from every location: the provider is slow — fail over, wait it out'
      : 'clients slow and the probes answering far slower than their baseline from some locations: the provider is slow there — fail over, tell the provider';
  }
  if (d.verdict === 'provider_suspected' && d.hint === 'traffic_shape' && d.latency) {
    return 'clients slow or shedding while the probes answer at their usual latency: our requests\' shape or our network path, or a provider slow only on requests like ours';
  }
  if (d.verdict === 'provider_suspected' && noFailure(c)) {
    return 'clients slow or shedding with no failed call, and nothing to tell whether the provider is slower than usual; nothing points at our side — fail over, tell the provider';
  }
  return null;
}

/** `probes_inconclusive` when no call failed: what the probes cannot tell about slowness. */
export function inconclusiveWithoutFailures(d: Decision, c: ClientFigures, minProbes: number): string {
  const j = d.latency;
  const unknown = j?.locations.filter((l) => l.pace === 'unknown') ?? [];
  const why = unknown.length
    ? `the probes from ${list(unknown.map((l) => l.location))} have no baseline to compare with (${list(unknown.map((l) => `${num(l.baseline_probes)}`))} probes before the window, ${num(minProbes)} needed)`
    : 'no probe baseline was read';
  return `hint probes_inconclusive: no call failed, so there is no provider-side error for the probes to confirm, and ${why} — whether the provider is slower than usual is unknown${j ? `; ${clientPace(c, j)}` : ''}`;
}

import type { VerdictThresholds } from './figures.ts';
import type { ClientFigures, Hint, PartHealth, ProbeFigures, Verdict } from './types.ts';

/** The probe side of a key, summed up over its locations. */
export type ProbeSide = 'healthy' | 'failing' | 'partial' | 'missing' | 'misconfigured';

/** Classifies the probe side from each location's status. */
export function probeSide(probes: Record<string, ProbeFigures>): { side: ProbeSide; failing: string[]; ok: string[]; misconfigured: string[]; insufficient: string[] } {
  const by = { failing: [] as string[], ok: [] as string[], misconfigured: [] as string[], insufficient: [] as string[] };
  for (const location of Object.keys(probes).sort()) by[probes[location]!.status].push(location);
  const usable = by.failing.length + by.ok.length;
  let side: ProbeSide;
  if (usable === 0) side = by.misconfigured.length > 0 ? 'misconfigured' : 'missing';
  else if (by.ok.length === 0) side = 'failing';
  else if (by.failing.length > 0) side = 'partial';
  else side = 'healthy';
  return { side, ...by };
}

/**
 * Locations whose most recent probes are fine but which failed for most of the window:
 * the provider was down in this window and has come back (or is coming back).
 */
export function recoveredLocations(probes: Record<string, ProbeFigures>, t: VerdictThresholds): string[] {
  return Object.keys(probes)
    .sort()
    .filter((l) => {
      const f = probes[l]!;
      const failed = f.error - f.misconfigured + f.slow;
      return f.status === 'ok' && f.probes >= t.min_probes && failed / f.probes > t.probe_failing_share;
    });
}

/** A decided verdict with the reason for its hint (used by the evidence). */
export interface Decision {
  verdict: Verdict;
  hint: Hint | null;
  side: ProbeSide;
  /** Locations that failed over the window and are fine again (an outage that is ending). */
  recovered?: string[];
  /** The fleet parts that were degraded and healthy when the hint is `local`. */
  local?: { degraded: string[]; healthy: string[] };
}

const CLIENT_FAULT = ['bad_request', 'auth', 'context_length', 'policy'] as const;

/** Shares of failed calls that point at us rather than the provider. */
export function failureMix(c: ClientFigures): { clientFault: number; quota: number } {
  if (c.failed === 0) return { clientFault: 0, quota: 0 };
  const clientFault = CLIENT_FAULT.reduce((n, k) => n + c.errors[k], 0) / c.failed;
  return { clientFault, quota: (c.errors.quota + c.errors.rate_limit) / c.failed };
}

/** The self-inflicted hint, most specific first; null when nothing stands out. */
function selfHint(c: ClientFigures, fleet: () => PartHealth[], t: VerdictThresholds): Pick<Decision, 'hint' | 'local'> {
  const mix = failureMix(c);
  if (mix.clientFault >= t.hint_dominant_share) return { hint: 'client_errors' };
  if (mix.quota >= t.hint_dominant_share) return { hint: 'quota' };
  if ((c.retry_ratio ?? 0) >= t.retry_storm_ratio) return { hint: 'retry_storm' };
  if ((c.rejection_share ?? 0) >= t.degraded_rejection_share && (c.slow_share ?? 0) <= t.capacity_max_slow_share) {
    return { hint: 'capacity' };
  }
  // The fleet split costs a query, so it is read only when every other hint is ruled out.
  const parts = fleet();
  const degraded = parts.filter((p) => p.degraded).map((p) => p.name);
  const healthy = parts.filter((p) => !p.degraded && p.calls >= t.local_min_calls).map((p) => p.name);
  if (degraded.length > 0 && healthy.length > 0) return { hint: 'local', local: { degraded, healthy } };
  return { hint: null };
}

/**
 * The verdict table of docs/alerts.md: clients degraded × probes failing decide the verdict; missing volume
 * or missing probes make it `insufficient_data` with the side that is missing as the hint.
 * `fleet` gives the services (or, with one service, the instances) judged on their own.
 */
export function decide(c: ClientFigures, probes: Record<string, ProbeFigures>, fleet: PartHealth[] | (() => PartHealth[]), t: VerdictThresholds): Decision {
  const p = probeSide(probes);
  if (!c.degraded && c.calls < t.min_calls) return { verdict: 'insufficient_data', hint: 'low_volume', side: p.side };
  if (p.side === 'missing') return { verdict: 'insufficient_data', hint: 'no_probes', side: p.side };
  if (p.side === 'misconfigured') return { verdict: 'insufficient_data', hint: 'probe_misconfigured', side: p.side };
  if (c.degraded) {
    if (p.side === 'failing') return { verdict: 'provider_outage', hint: null, side: p.side };
    if (p.side === 'partial') return { verdict: 'provider_outage', hint: 'regional', side: p.side };
    // Clients are judged over the whole window, probes on their latest results: right after
    // an outage the clients still look degraded while the probes are fine again. If the
    // probes failed for most of the window too, it was the provider, not us.
    const recovered = recoveredLocations(probes, t);
    if (recovered.length > 0 && recovered.length === p.ok.length) return { verdict: 'provider_outage', hint: null, side: p.side, recovered };
    return { verdict: 'self_inflicted', side: p.side, ...selfHint(c, typeof fleet === 'function' ? fleet : () => fleet, t) };
  }
  if (p.side === 'failing') return { verdict: 'provider_degraded', hint: null, side: p.side };
  if (p.side === 'partial') return { verdict: 'provider_degraded', hint: 'regional', side: p.side };
  return { verdict: 'healthy', hint: p.misconfigured.length > 0 ? 'probe_misconfigured' : null, side: p.side };
}

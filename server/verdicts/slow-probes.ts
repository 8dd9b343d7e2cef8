/**
 * Latency is evidence (issue 36): a provider that slows down without failing shows in its
 * probes, which answer — but far slower than their own baseline for that key and location,
 * or slower than the latency ceiling the clients declare for the key. Together with clients
 * that are slow or shedding (slow calls or timeouts, bulkhead rejections, breakers opening on
 * `slow_calls`) that is a provider verdict with the `slow` hint; clients slow while every probe
 * answers at its usual latency point at our requests' shape or our network instead.
 */
import type { VerdictThresholds } from './figures.ts';
import type { ClientFigures, ProbeFigures } from './types.ts';

/** What a location's probes say about latency. */
export type ProbePace = 'slow' | 'usual' | 'unknown';

/** One ok location's latency against what it is judged by. */
export interface LocationPace {
  location: string;
  pace: ProbePace;
  /** The window's probe p50, ms. */
  p50: number | null;
  /** The location's own p50 over the lookback before the window; null without enough probes then. */
  baseline_p50: number | null;
  baseline_probes: number;
  /** True when the p50 is over the clients' declared ceiling (whatever the baseline). */
  over_ceiling: boolean;
}

/** The latency side of a decision: the clients' signals and each ok location's pace. */
export interface LatencyJudgement {
  /** The clients are slow or shedding (see `clientsSlow`). */
  clients_slow: boolean;
  /** Transitions into open with reason `slow_calls` in the window (key level; 0 for a service). */
  slow_opens: number;
  /** The clients' declared `latency_ceiling_ms`, when a config event says it. */
  ceiling_ms: number | null;
  lookback_s: number;
  locations: LocationPace[];
}

/** Slow calls and timeouts over calls: the clients waited longer than they can. */
export function slowCallShare(c: ClientFigures): number {
  return c.calls > 0 ? (c.slow + (c.errors.timeout ?? 0)) / c.calls : 0;
}

/**
 * Clients slow or shedding: slow calls (and timeouts) at the degraded slow share, bulkhead
 * rejections at the degraded rejection share, or breakers opening on `slow_calls`.
 */
export function clientsSlow(c: ClientFigures, t: VerdictThresholds, slowOpens: number): boolean {
  if (slowOpens > 0) return true;
  if (c.calls < t.min_calls) return false;
  return slowCallShare(c) >= t.degraded_slow_share || (c.rejection_share ?? 0) >= t.degraded_rejection_share;
}

/**
 * A location's pace: `slow` when its window p50 is at least `slow_probe_ratio` times its
 * baseline p50 and `slow_probe_min_delta_ms` above it (a 60 ms probe turning 180 ms is no
 * outage), or over the clients' ceiling; `usual` when a baseline exists and it is not;
 * `unknown` without a baseline (too few probes before the window) and under the ceiling.
 */
export function probePace(location: string, f: ProbeFigures, t: VerdictThresholds): LocationPace {
  const b = f.baseline;
  const p50 = f.latency_ms.p50;
  const baseline = b && b.probes >= t.slow_probe_baseline_min_probes ? b.p50 : null;
  const overCeiling = p50 !== null && b?.client_ceiling_ms != null && p50 > b.client_ceiling_ms;
  const overBaseline = p50 !== null && baseline !== null && p50 >= baseline * t.slow_probe_ratio && p50 - baseline >= t.slow_probe_min_delta_ms;
  const pace: ProbePace = overCeiling || overBaseline ? 'slow' : baseline !== null && p50 !== null ? 'usual' : 'unknown';
  return { location, pace, p50, baseline_p50: baseline, baseline_probes: b?.probes ?? 0, over_ceiling: overCeiling };
}

/**
 * The latency judgement over the ok locations, or undefined when no baseline was read for
 * them (the analysis reads it only for degraded clients with a latency signal).
 */
export function judgeLatency(c: ClientFigures, probes: Record<string, ProbeFigures>, ok: string[], t: VerdictThresholds, slowOpens: number): LatencyJudgement | undefined {
  const read = ok.map((l) => probes[l]!.baseline).find((b) => b !== undefined);
  if (!read) return undefined;
  return {
    clients_slow: clientsSlow(c, t, slowOpens),
    slow_opens: slowOpens,
    ceiling_ms: read.client_ceiling_ms,
    lookback_s: read.lookback_s,
    locations: ok.map((l) => probePace(l, probes[l]!, t)),
  };
}

/** The ok locations whose probes are slow. */
export const slowLocations = (j: LatencyJudgement): string[] => j.locations.filter((l) => l.pace === 'slow').map((l) => l.location);

/** True when every ok location has a baseline and answers at it: the provider serves small requests as fast as usual. */
export const probesAtBaseline = (j: LatencyJudgement): boolean => j.locations.length > 0 && j.locations.every((l) => l.pace === 'usual');

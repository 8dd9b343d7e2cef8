/**
 * The `/metrics` state gauges (breaker instances, open share, verdict) of the most recent
 * fleet-wide analysis over the metrics window. The leader's alert pass analyses every key
 * over `alerts.verdict_window_s` each `alerts.interval_s`; when that window is the metrics
 * window, a scrape that comes within one alert interval of that pass's end of window shows
 * its states instead of judging every key again (seconds per 10,000 keys). Only the compact
 * states are kept (one small object per key), never the analyses.
 */
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import { VERDICTS, type Verdict } from '../verdicts/types.ts';
import type { KeyStateNow } from './key-families.ts';

/** States per key id, judged over the window ending at `to`. */
export interface StatesAt {
  to: number;
  byKey: Map<number, KeyStateNow>;
}

/** The latest states over the metrics window, however they were judged. */
export interface LatestStates {
  /**
   * Keeps the states of a pass over `[to - windowMs, to]` and returns them; of a pass over
   * another window, or older than the one kept, `states` is not called and null returned.
   */
  record(to: number, windowMs: number, states: () => Map<number, KeyStateNow>): StatesAt | null;
  /** The kept states when their window ended at most `maxAgeMs` before `now` (and not after it), else null. */
  fresh(now: number, maxAgeMs: number): StatesAt | null;
}

/** The gauges' part of one analysis. */
export function stateOf(a: KeyAnalysis): KeyStateNow {
  return { closed: a.state.closed, open: a.state.open, halfOpen: a.state.half_open, openRatio: a.clients.open_share, verdict: a.decision.verdict };
}

/** States per key id of a pass. */
export function statesOf(analyses: readonly KeyAnalysis[]): Map<number, KeyStateNow> {
  const out = new Map<number, KeyStateNow>();
  for (const a of analyses) out.set(a.info.id, stateOf(a));
  return out;
}

/** Numbers per key in a packed array: id, closed, open, half-open, open ratio (NaN: null), verdict (index in VERDICTS). */
const PACKED = 6;

/**
 * The states of a pass as one flat array: what the read worker sends back (a copy of a few
 * bytes per key instead of a structured clone of an object per key).
 */
export function packStates(analyses: readonly KeyAnalysis[]): Float64Array {
  const out = new Float64Array(analyses.length * PACKED);
  analyses.forEach((a, i) => {
    const s = stateOf(a);
    out.set([a.info.id, s.closed, s.open, s.halfOpen, s.openRatio ?? Number.NaN, VERDICTS.indexOf(s.verdict)], i * PACKED);
  });
  return out;
}

/** `packStates`' array back as states per key id. */
export function unpackStates(packed: Float64Array): Map<number, KeyStateNow> {
  const out = new Map<number, KeyStateNow>();
  for (let i = 0; i < packed.length; i += PACKED) {
    const ratio = packed[i + 4]!;
    out.set(packed[i]!, {
      closed: packed[i + 1]!, open: packed[i + 2]!, halfOpen: packed[i + 3]!, openRatio: Number.isNaN(ratio) ? null : ratio, verdict: VERDICTS[packed[i + 5]!] as Verdict,
    });
  }
  return out;
}

/** One kept pass over a window of `windowMs` (the metrics window; null: no state gauges, nothing is kept). */
export function createLatestStates(windowMs: number | null): LatestStates {
  let kept: StatesAt | null = null;
  return {
    record(to, ms, states) {
      if (ms !== windowMs || (kept && kept.to > to)) return null;
      kept = { to, byKey: states() };
      return kept;
    },
    fresh(now, maxAgeMs) {
      if (!kept || maxAgeMs <= 0 || kept.to > now || now - kept.to > maxAgeMs) return null;
      return kept;
    },
  };
}

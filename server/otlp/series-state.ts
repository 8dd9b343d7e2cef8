/**
 * Cumulative → delta for OTLP histograms, per series. A series is one resource × metric ×
 * attribute set × start time, so an exporter restart (a new start time) is a new series
 * rather than a huge negative step; a count that falls within one series is a reset too.
 *
 * State is bounded: at most `maxSeries` series (least recently seen dropped first) and none
 * idle for longer than `idleMs`. It belongs to one collector instance (the OTLP plugin);
 * with several collectors behind a load balancer, send delta temporality (docs/otlp.md).
 */
import type { HistogramPoint } from './model.ts';

/** What the mapping needs of one point, as a delta over `[startMs, timeMs]`. */
export interface DeltaPoint {
  startMs: number;
  timeMs: number;
  count: number;
  sum: number | undefined;
  bounds: number[];
  counts: number[];
}

interface SeriesState {
  timeMs: number;
  count: number;
  sum: number | undefined;
  bounds: number[];
  counts: number[];
  seenAt: number;
}

/** Options of the series table. */
export interface SeriesOptions {
  maxSeries: number;
  idleMs: number;
  /** When this collector started: a series that began before it is only a baseline. */
  startedAt: number;
}

/** The deltas of one request, applied to the table only once the request is stored. */
export interface StagedDeltas {
  /** The delta of `point` in series `id`, or undefined when it adds nothing (baseline, repeat, stale). */
  delta(id: string, point: HistogramPoint): DeltaPoint | undefined;
  /** Records the staged points as the series' latest. */
  commit(): void;
}

const sameBounds = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The cumulative series seen by one collector. */
export class CumulativeSeries {
  private readonly series = new Map<string, SeriesState>();
  private lastSweep: number;

  constructor(
    private readonly options: SeriesOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = options.startedAt;
  }

  /** How many series are held (for tests and /metrics). */
  get size(): number {
    return this.series.size;
  }

  /** Starts the deltas of one request. */
  stage(): StagedDeltas {
    const staged = new Map<string, SeriesState>();
    const at = this.now();
    return {
      delta: (id, p) => {
        const prev = staged.get(id) ?? this.series.get(id);
        const next: SeriesState = { timeMs: p.timeMs, count: p.count, sum: p.sum, bounds: p.bounds, counts: p.counts, seenAt: at };
        if (!prev) {
          staged.set(id, next);
          // A series that began while this collector was up is new: all of it is a delta. One
          // that began before is a baseline: we cannot tell when its counts happened.
          if (p.startMs > 0 && p.startMs >= this.options.startedAt) {
            return { startMs: p.startMs, timeMs: p.timeMs, count: p.count, sum: p.sum, bounds: p.bounds, counts: p.counts };
          }
          return undefined;
        }
        if (p.timeMs <= prev.timeMs) return undefined; // a retried or out-of-order point
        staged.set(id, next);
        const reset = p.count < prev.count || !sameBounds(p.bounds, prev.bounds) || p.counts.some((c, i) => c < (prev.counts[i] ?? 0));
        if (reset) {
          return { startMs: Math.max(p.startMs, prev.timeMs), timeMs: p.timeMs, count: p.count, sum: p.sum, bounds: p.bounds, counts: p.counts };
        }
        return {
          startMs: prev.timeMs,
          timeMs: p.timeMs,
          count: p.count - prev.count,
          sum: p.sum === undefined || prev.sum === undefined ? undefined : p.sum - prev.sum,
          bounds: p.bounds,
          counts: p.counts.map((c, i) => c - (prev.counts[i] ?? 0)),
        };
      },
      commit: () => {
        for (const [id, state] of staged) {
          this.series.delete(id); // re-insert: Map order is least recently seen first
          this.series.set(id, state);
        }
        this.evict(at);
      },
    };
  }

  private evict(at: number): void {
    while (this.series.size > this.options.maxSeries) {
      const oldest = this.series.keys().next().value as string;
      this.series.delete(oldest);
    }
    if (at - this.lastSweep < 60_000) return;
    this.lastSweep = at;
    for (const [id, state] of this.series) {
      if (at - state.seenAt <= this.options.idleMs) break; // the rest were seen more recently
      this.series.delete(id);
    }
  }
}

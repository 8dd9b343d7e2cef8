/**
 * Spans count at once; metrics take over the intervals they cover (docs/otlp.md, "Spans and
 * metrics from one service"). One process's instrumentation often records the same calls
 * as spans (exported every few seconds) and as GenAI metrics (every 60 s). Each call must be
 * counted once, and a span-only service must be visible within seconds, so:
 *
 * - a span is counted when it arrives, unless metrics of its service, instance and key
 *   already covered its end time (the metrics delta that covered it counted it);
 * - a metrics delta over `[start, end]` is stored only for what the spans counted in that
 *   interval did not: its calls, failures and their classes, less the spans'; nothing when
 *   the spans had them all (the common case: the same calls, seen twice).
 *
 * State per service, instance and key: the counted spans in 10-second buckets since the last
 * metrics delta (at most 10 minutes of them), and the end of the last delta. Bounded: at most
 * `maxSeries` series, least recently used forgotten first. It is one collector's memory; a
 * collector restart forgets it (at most one metrics interval counted twice, with delta
 * temporality; a cumulative series that began before the restart is only a baseline).
 */
import type { ErrorClass, WindowEvent } from '@breakerbox/protocol';

/** Bucket width of the counted spans, ms. */
export const HANDOVER_BUCKET_MS = 10_000;
/** How far back counted spans are kept for a metrics delta to subtract, ms. */
export const HANDOVER_KEEP_MS = 10 * 60_000;
/**
 * Spans ending this little after a metrics delta's end are the delta's too. The OpenTelemetry
 * JS SDK times spans on a clock anchored at the root span's start and metric collections on
 * `performance.timeOrigin` + `performance.now()`, which drift apart by milliseconds. Erring
 * this way only moves a call to the next delta (which then counts it), never twice.
 */
export const HANDOVER_CLOCK_SLACK_MS = 1_000;

interface Counted {
  calls: number;
  failed: number;
  errors: Partial<Record<ErrorClass, number>>;
}

interface Series {
  /** Bucket start → spans counted in it (weighted). */
  buckets: Map<number, Counted>;
  /** End of the last metrics delta stored: spans ending at or before it are the metrics'. */
  metricsUntil: number;
}

/** The handover between spans and metrics of each (service, instance, key). */
export class SpanHandover {
  private readonly series = new Map<string, Series>();

  constructor(private readonly maxSeries = 50_000) {}

  /** Series tracked (for tests and the memory statement). */
  get size(): number {
    return this.series.size;
  }

  private get(id: string): Series {
    let s = this.series.get(id);
    if (s) {
      this.series.delete(id);
    } else {
      s = { buckets: new Map(), metricsUntil: -Infinity };
      if (this.series.size >= this.maxSeries) this.series.delete(this.series.keys().next().value!);
    }
    this.series.set(id, s);
    return s;
  }

  /** True when metrics of series `id` already counted a call that ended at `endMs`. */
  covered(id: string, endMs: number): boolean {
    const s = this.series.get(id);
    return s !== undefined && endMs <= s.metricsUntil + HANDOVER_CLOCK_SLACK_MS;
  }

  /** Notes a span counted for series `id`: its end, weight and failure class (`null`: ok). */
  counted(id: string, endMs: number, weight: number, cls: ErrorClass | null): void {
    const s = this.get(id);
    const at = endMs - (endMs % HANDOVER_BUCKET_MS);
    let b = s.buckets.get(at);
    if (!b) {
      s.buckets.set(at, (b = { calls: 0, failed: 0, errors: {} }));
      // Buckets arrive roughly in time order: the oldest are first in the map.
      for (const old of s.buckets.keys()) {
        if (old >= at - HANDOVER_KEEP_MS) break;
        s.buckets.delete(old);
      }
    }
    b.calls += weight;
    if (cls !== null) {
      b.failed += weight;
      b.errors[cls] = (b.errors[cls] ?? 0) + weight;
    }
  }

  /**
   * The part of metrics window `w` (series `id`, over `[w.start, w.end]`) that the spans counted
   * in its interval did not count; undefined when nothing is left. From now on the series'
   * spans ending by `w.end` are the metrics'.
   */
  remainder(id: string, w: WindowEvent): WindowEvent | undefined {
    const s = this.get(id);
    const spans: Counted = { calls: 0, failed: 0, errors: {} };
    for (const [at, b] of s.buckets) {
      if (at >= w.end) continue;
      if (at + HANDOVER_BUCKET_MS > w.start) add(spans, b);
      s.buckets.delete(at);
    }
    s.metricsUntil = Math.max(s.metricsUntil, w.end);
    if (spans.calls === 0) return w;
    return subtract(w, spans);
  }
}

function add(into: Counted, b: Counted): void {
  into.calls += b.calls;
  into.failed += b.failed;
  for (const [c, n] of Object.entries(b.errors) as Array<[ErrorClass, number]>) into.errors[c] = (into.errors[c] ?? 0) + n;
}

/** Splits `total` over `weights` as integers that sum to it (largest remainders first). */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (total <= 0 || sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w * total) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    out[i]!++;
  }
  return out;
}

/** Metrics window `w` less the spans' counts: calls and failures by difference, classes where the metrics have more. */
function subtract(w: WindowEvent, spans: Counted): WindowEvent | undefined {
  const wFailed = w.calls - w.ok;
  const calls = Math.max(0, w.calls - Math.round(spans.calls));
  if (calls === 0) return undefined;
  const failed = Math.min(calls, Math.max(0, wFailed - Math.round(spans.failed)));
  const classes = Object.keys(w.errors) as ErrorClass[];
  // The classes the metrics have more of than the spans; else the metrics' own mix.
  let weights = classes.map((c) => Math.max(0, (w.errors[c] ?? 0) - (spans.errors[c] ?? 0)));
  if (weights.every((x) => x === 0)) weights = classes.map((c) => w.errors[c] ?? 0);
  const shares = apportion(failed, weights);
  const errors: Partial<Record<ErrorClass, number>> = {};
  classes.forEach((c, i) => {
    if (shares[i]! > 0) errors[c] = shares[i]!;
  });
  const ratio = calls / w.calls;
  const scaled = (h: WindowEvent['latency_ms']) => ({ bounds: h.bounds, counts: apportion(calls, h.counts) });
  const out: WindowEvent = {
    ...w,
    calls,
    ok: calls - failed,
    slow: Math.min(calls, Math.round(w.slow * ratio)),
    errors,
    latency_ms: scaled(w.latency_ms),
    input_tokens: Math.round(w.input_tokens * ratio),
    output_tokens: Math.round(w.output_tokens * ratio),
    cost_usd: w.cost_usd * ratio,
  };
  if (w.ttft_ms) out.ttft_ms = { bounds: w.ttft_ms.bounds, counts: apportion(Math.round(w.ttft_ms.counts.reduce((a, b) => a + b, 0) * ratio), w.ttft_ms.counts) };
  return out;
}

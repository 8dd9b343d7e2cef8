/**
 * GenAI metrics → protocol v1 `window` events, one per resource × key × interval:
 * `gen_ai.client.operation.duration` gives calls, ok, errors by class (from `error.type`)
 * and the latency histogram re-bucketed onto the protocol's bounds;
 * `gen_ai.client.token.usage` gives input and output tokens. The mapping is in docs/otlp.md.
 */
import type { BreakerKey, ErrorClass, TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { DEFAULT_LATENCY_BOUNDS_MS, keyId } from '@breakerbox/protocol';
import { addHistogram, emptyCounts } from '../storage/histogram.ts';
import type { TimeBounds } from '../ingest/validate-batch.ts';
import { classifyErrorType, UNCLASSIFIED } from './error-type.ts';
import { keyInterner, sourceFrom } from './key-mapping.ts';
import { CUMULATIVE, DELTA, metricRole, type Attributes, type HistogramPoint, type ResourceMetrics } from './model.ts';
import type { DeltaPoint, StagedDeltas } from './series-state.ts';
import { Rejections } from './rejections.ts';

/** What one OTLP metrics request becomes. */
export interface MappedMetrics {
  /** One batch per resource that produced windows. */
  batches: TelemetryBatch[];
  rejected: Rejections;
  /** Data points per key id that went into the batches (what refusing that key refuses). */
  pointsPerKey: Map<string, number>;
}

/** Seconds (the GenAI unit) or milliseconds → ms; undefined for any other unit. */
function msPerUnit(unit: string): number | undefined {
  if (unit === 's' || unit === '') return 1000;
  if (unit === 'ms') return 1;
  return undefined;
}

function checkShape(p: HistogramPoint): string | undefined {
  if (p.counts.length === 0 && p.bounds.length === 0) return undefined;
  if (p.counts.length !== p.bounds.length + 1) return 'histogram point whose bucket_counts are not one more than explicit_bounds';
  for (let i = 1; i < p.bounds.length; i++) if (!(p.bounds[i]! > p.bounds[i - 1]!)) return 'histogram point whose explicit_bounds do not increase';
  if (p.bounds.some((b) => !Number.isFinite(b))) return 'histogram point with a non-finite bound';
  return undefined;
}

/** A stable id of an attribute set, for the series table. */
function attributesId(attrs: Attributes): string {
  return Object.keys(attrs)
    .sort()
    .map((k) => `${k}=${String(attrs[k])}`)
    .join('\u0001');
}

function emptyWindow(key: BreakerKey, start: number, end: number): WindowEvent & { latency_ms: { bounds: number[]; counts: number[] } } {
  return {
    type: 'window', start, end, key, calls: 0, ok: 0, slow: 0, errors: {}, rejected: 0, short_circuited: 0, retries: 0,
    cold_excluded: 0, half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: DEFAULT_LATENCY_BOUNDS_MS as number[], counts: emptyCounts() },
    input_tokens: 0, output_tokens: 0, cost_usd: 0,
  };
}

/**
 * Maps decoded resources to batches. `deltas` turns cumulative points into deltas (staged:
 * the caller commits them once the batches are stored); points outside `bounds` or without
 * a key are refused and counted, never stored.
 */
export function metricsToWindows(resources: ResourceMetrics[], deltas: StagedDeltas, bounds: TimeBounds): MappedMetrics {
  const rejected = new Rejections();
  // A request repeats few distinct error.type values over many points: classify each once.
  const classes = new Map<string, ErrorClass>();
  const classOf = (errorType: string): ErrorClass => {
    let cls = classes.get(errorType);
    if (cls === undefined) classes.set(errorType, (cls = classifyErrorType(errorType) ?? UNCLASSIFIED));
    return cls;
  };
  const keyOf = keyInterner();
  const toMs = boundsScaler();
  const batches: TelemetryBatch[] = [];
  const pointsPerKey = new Map<string, number>();
  for (const rm of resources) {
    const source = sourceFrom(rm.resource);
    const resourceId = `${source.service}\u0000${source.instance}`;
    const windows = new Map<string, ReturnType<typeof emptyWindow>>();
    for (const metric of rm.metrics) {
      if (!metric.histogram) {
        rejected.add(`${metric.name} data points that are not an explicit-bucket histogram`, metric.otherPoints);
        continue;
      }
      const { temporality, points } = metric.histogram;
      if (temporality !== DELTA && temporality !== CUMULATIVE) {
        rejected.add(`${metric.name} points without an aggregation temporality`, points.length);
        continue;
      }
      const role = metricRole(metric.name);
      if (!role) continue;
      const scale = msPerUnit(metric.unit);
      if (role.role !== 'tokens' && scale === undefined) {
        rejected.add(`${metric.name} points in unit "${metric.unit}" (expected s)`, points.length);
        continue;
      }
      let unkeyedFailures: BreakerKey | undefined; // the key a failure point without one is filed under, found once per metric
      for (const point of points) {
        if (point.flags & 1) continue; // "no recorded value": a staleness marker, nothing to count
        const shape = checkShape(point);
        if (shape) {
          rejected.add(shape);
          continue;
        }
        let key = keyOf(point.attributes);
        if (typeof key === 'string' && role.role === 'duration' && isFailure(point.attributes)) key = (unkeyedFailures ??= attributed(points, keyOf));
        if (typeof key === 'string') {
          rejected.add(`${metric.name} points with ${key} (gen_ai.provider.name, gen_ai.operation.name, gen_ai.request.model)`);
          continue;
        }
        let d: DeltaPoint | undefined = point;
        if (temporality === CUMULATIVE) {
          d = deltas.delta(`${resourceId}\u0000${metric.name}\u0000${point.startMs}\u0000${attributesId(point.attributes)}`, point);
          if (!d) continue;
        }
        if (d.startMs === 0) d = { ...d, startMs: d.timeMs };
        if (d.timeMs > bounds.newest || d.startMs < bounds.oldest || d.timeMs < d.startMs) {
          rejected.add(`${metric.name} points whose time is outside the accepted span (raw retention back, max_future_ms ahead)`);
          continue;
        }
        if (role.role === 'tokens' && d.sum === undefined) {
          rejected.add(`${metric.name} points without a sum`);
          continue;
        }
        if (d.count === 0) continue; // no traffic in this interval: no window, as the SDK sends none
        // Points of one collection share their end; series that began at different moments
        // differ in start: one window per key and end, over the earliest start.
        const kid = keyId(key);
        pointsPerKey.set(kid, (pointsPerKey.get(kid) ?? 0) + 1);
        const id = `${kid}\u0000${d.timeMs}`;
        let w = windows.get(id);
        if (!w) windows.set(id, (w = emptyWindow(key, d.startMs, d.timeMs)));
        else if (d.startMs < w.start) w.start = d.startMs;
        if (role.role === 'duration') addDuration(w, d, point.attributes, toMs(d.bounds, scale!), classOf);
        else if (role.role === 'ttft') addTtft(w, d, toMs(d.bounds, scale!));
        else addTokens(w, d, point.attributes, role.type);
      }
    }
    if (windows.size > 0) batches.push({ batch_id: '', source, events: [...windows.values()] });
  }
  return { batches, rejected, pointsPerKey };
}

/** The key breakerbox files failures under when a sender names neither provider nor model and nothing else tells. */
export const UNATTRIBUTED_KEY: BreakerKey = { provider: 'unattributed', endpoint: 'unattributed', model: 'unattributed' };

const isFailure = (attrs: Attributes) => attrs['error.type'] !== undefined && attrs['error.type'] !== '';

/**
 * The key of a failure point that names no provider or model (OpenLLMetry Python records
 * them with `error.type` only): the one key of the other points of its metric in this
 * resource when there is exactly one, else `UNATTRIBUTED_KEY` — counted where it can be
 * seen, never dropped (docs/otlp.md, "Failures without a key").
 */
function attributed(points: HistogramPoint[], keyOf: (attrs: Attributes) => BreakerKey | string): BreakerKey {
  let only: BreakerKey | undefined;
  for (const p of points) {
    const k = keyOf(p.attributes);
    if (typeof k === 'string') continue;
    if (only && keyId(only) !== keyId(k)) return UNATTRIBUTED_KEY;
    only = k;
  }
  return only ?? UNATTRIBUTED_KEY;
}

/** Bounds in the metric's unit → ms; the last result is reused, since a request's points nearly always share their bounds. */
function boundsScaler(): (bounds: number[], scale: number) => number[] {
  let lastIn: number[] = [];
  let lastScale = 0;
  let lastOut: number[] = [];
  return (bounds, scale) => {
    if (scale === lastScale && bounds.length === lastIn.length && bounds.every((b, i) => b === lastIn[i])) return lastOut;
    lastIn = bounds;
    lastScale = scale;
    lastOut = scale === 1 ? bounds : bounds.map((b) => b * scale);
    return lastOut;
  };
}

function addDuration(w: ReturnType<typeof emptyWindow>, d: DeltaPoint, attrs: Attributes, boundsMs: number[], classOf: (errorType: string) => ErrorClass): void {
  w.calls += d.count;
  const errorType = attrs['error.type'];
  if (errorType === undefined || errorType === '') {
    w.ok += d.count;
  } else {
    const cls = classOf(String(errorType));
    w.errors[cls] = (w.errors[cls] ?? 0) + d.count;
  }
  if (d.counts.length === 0) {
    w.latency_ms.counts[w.latency_ms.counts.length - 1]! += d.count; // no buckets: all we know is "some time"
    return;
  }
  addHistogram(w.latency_ms.counts, { bounds: boundsMs, counts: d.counts });
}

/** `gen_ai.client.operation.time_to_first_chunk`: the window's TTFT histogram (no calls: the duration metric counts them). */
function addTtft(w: ReturnType<typeof emptyWindow>, d: DeltaPoint, boundsMs: number[]): void {
  w.ttft_ms ??= { bounds: DEFAULT_LATENCY_BOUNDS_MS as number[], counts: emptyCounts() };
  if (d.counts.length === 0) {
    w.ttft_ms.counts[w.ttft_ms.counts.length - 1]! += d.count;
    return;
  }
  addHistogram(w.ttft_ms.counts, { bounds: boundsMs, counts: d.counts });
}

function addTokens(w: ReturnType<typeof emptyWindow>, d: DeltaPoint, attrs: Attributes, fixedType?: 'input' | 'output'): void {
  const tokens = Math.max(0, Math.round(d.sum ?? 0));
  const type = fixedType ?? String(attrs['gen_ai.token.type'] ?? '').toLowerCase();
  if (type === 'input' || type === 'prompt') w.input_tokens += tokens;
  else if (type === 'output' || type === 'completion') w.output_tokens += tokens;
}

/**
 * Decodes OTLP/JSON export requests into the shared model. OTLP's JSON is proto3's JSON
 * mapping with lowerCamelCase keys, 64-bit integers as decimal strings (numbers accepted
 * too), enums as integers, and unknown fields ignored. A value of the wrong type is a 400
 * naming the field as a JSON pointer.
 */
import { BreakerboxError } from '../errors.ts';
import {
  MAPPED_METRICS,
  nanosToMs,
  type AttrValue,
  type Attributes,
  type HistogramPoint,
  type LogRecord,
  type Metric,
  type ResourceLogs,
  type ResourceMetrics,
  type Temporality,
} from './model.ts';

type Json = Record<string, unknown>;

/** A 400 naming the offending field as a JSON pointer. */
export function invalid(path: string, message: string): never {
  throw new BreakerboxError('BB_ERR_INGEST_INVALID', message, { path });
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An array field (absent = empty). */
export function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) invalid(path, 'must be an array');
  return v;
}

/** An object field (absent = empty). */
export function object(v: unknown, path: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) invalid(path, 'must be an object');
  return v;
}

/** A 64-bit unsigned integer: a decimal string or a number. */
function uint64(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return Number(v);
  invalid(path, 'must be a non-negative integer (a decimal string or a number)');
}

/** Nanoseconds since the epoch to ms, exactly: a long decimal string is cut, not rounded through a double. */
export function nanos(v: unknown, path: string): number {
  if (typeof v === 'string' && /^\d{7,20}$/.test(v)) return Number(v.slice(0, -6));
  return nanosToMs(uint64(v, path));
}

function double(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  // proto3 JSON allows "NaN", "Infinity" and numeric strings; none of them is a usable bound or sum.
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  invalid(path, 'must be a finite number');
}

function anyValue(v: Json): AttrValue | undefined {
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined) {
    const n = typeof v.intValue === 'string' ? Number(v.intValue) : v.intValue;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  }
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  return undefined;
}

/** A `KeyValue` list → scalar attributes. */
export function attributes(v: unknown, path: string): Attributes {
  const out: Attributes = {};
  const items = list(v, path);
  for (let i = 0; i < items.length; i++) {
    const kv = object(items[i], `${path}/${i}`);
    if (typeof kv.key !== 'string') invalid(`${path}/${i}/key`, 'must be a string');
    const value = anyValue(object(kv.value, `${path}/${i}/value`));
    if (kv.key && value !== undefined) out[kv.key] = value;
  }
  return out;
}

function histogramPoint(v: unknown, path: string): HistogramPoint {
  const p = object(v, path);
  return {
    attributes: attributes(p.attributes, `${path}/attributes`),
    startMs: nanos(p.startTimeUnixNano, `${path}/startTimeUnixNano`),
    timeMs: nanos(p.timeUnixNano, `${path}/timeUnixNano`),
    count: uint64(p.count, `${path}/count`),
    sum: p.sum === undefined || p.sum === null ? undefined : double(p.sum, `${path}/sum`),
    counts: list(p.bucketCounts, `${path}/bucketCounts`).map((c, i) => uint64(c, `${path}/bucketCounts/${i}`)),
    bounds: list(p.explicitBounds, `${path}/explicitBounds`).map((b, i) => double(b, `${path}/explicitBounds/${i}`)),
    flags: Number(uint64(p.flags, `${path}/flags`)),
  };
}

function temporality(v: unknown, path: string): Temporality {
  if (v === undefined || v === null) return 0;
  if (v === 0 || v === 1 || v === 2) return v;
  invalid(path, 'must be 0, 1 (delta) or 2 (cumulative): OTLP/JSON encodes enums as integers');
}

function metric(v: unknown, path: string): Metric | undefined {
  const m = object(v, path);
  const name = typeof m.name === 'string' ? m.name : '';
  if (!MAPPED_METRICS.has(name)) return undefined;
  const out: Metric = { name, unit: typeof m.unit === 'string' ? m.unit : '', otherPoints: 0 };
  if (m.histogram !== undefined) {
    const h = object(m.histogram, `${path}/histogram`);
    out.histogram = {
      temporality: temporality(h.aggregationTemporality, `${path}/histogram/aggregationTemporality`),
      points: list(h.dataPoints, `${path}/histogram/dataPoints`).map((p, i) => histogramPoint(p, `${path}/histogram/dataPoints/${i}`)),
    };
  } else {
    for (const kind of ['gauge', 'sum', 'exponentialHistogram', 'summary']) {
      if (m[kind] !== undefined) out.otherPoints += list(object(m[kind], `${path}/${kind}`).dataPoints, `${path}/${kind}/dataPoints`).length;
    }
  }
  return out;
}

/** Decodes a parsed OTLP/JSON ExportMetricsServiceRequest. */
export function decodeMetricsJson(body: unknown): ResourceMetrics[] {
  const root = object(body, '');
  return list(root.resourceMetrics, '/resourceMetrics').map((v, i) => {
    const path = `/resourceMetrics/${i}`;
    const rm = object(v, path);
    const metrics: Metric[] = [];
    list(rm.scopeMetrics, `${path}/scopeMetrics`).forEach((s, j) => {
      const sm = object(s, `${path}/scopeMetrics/${j}`);
      list(sm.metrics, `${path}/scopeMetrics/${j}/metrics`).forEach((m, k) => {
        const decoded = metric(m, `${path}/scopeMetrics/${j}/metrics/${k}`);
        if (decoded) metrics.push(decoded);
      });
    });
    return { resource: attributes(object(rm.resource, `${path}/resource`).attributes, `${path}/resource/attributes`), metrics };
  });
}

function logRecord(v: unknown, path: string): LogRecord {
  const r = object(v, path);
  const attrs = attributes(r.attributes, `${path}/attributes`);
  const time = nanos(r.timeUnixNano, `${path}/timeUnixNano`) || nanos(r.observedTimeUnixNano, `${path}/observedTimeUnixNano`);
  const eventName = typeof r.eventName === 'string' && r.eventName ? r.eventName : typeof attrs['event.name'] === 'string' ? attrs['event.name'] : '';
  return { timeMs: time, eventName, attributes: attrs };
}

/** Decodes a parsed OTLP/JSON ExportLogsServiceRequest. */
export function decodeLogsJson(body: unknown): ResourceLogs[] {
  const root = object(body, '');
  return list(root.resourceLogs, '/resourceLogs').map((v, i) => {
    const path = `/resourceLogs/${i}`;
    const rl = object(v, path);
    const records: LogRecord[] = [];
    list(rl.scopeLogs, `${path}/scopeLogs`).forEach((s, j) => {
      const sl = object(s, `${path}/scopeLogs/${j}`);
      list(sl.logRecords, `${path}/scopeLogs/${j}/logRecords`).forEach((r, k) => records.push(logRecord(r, `${path}/scopeLogs/${j}/logRecords/${k}`)));
    });
    return { resource: attributes(object(rl.resource, `${path}/resource`).attributes, `${path}/resource/attributes`), records };
  });
}

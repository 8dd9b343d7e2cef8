/**
 * Decodes `ExportMetricsServiceRequest` and `ExportLogsServiceRequest` (OTLP protobuf,
 * opentelemetry-proto v1) into the shared model. Field numbers are those of the .proto
 * files; unknown fields are skipped, as protobuf requires. Data points of metrics the
 * mapping does not read are never decoded.
 */
import { decodeResourceEnvelope } from './resource-envelope.ts';
import type { WireReader } from './wire-reader.ts';
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

/** common.v1.AnyValue (entered) → a scalar, or undefined for arrays, maps, bytes and unset. */
function anyValue(r: WireReader): AttrValue | undefined {
  let value: AttrValue | undefined;
  while (r.more()) {
    const tag = r.tag();
    switch (tag) {
      case (1 << 3) | 2:
        value = r.string();
        break;
      case (2 << 3) | 0:
        value = r.varint() !== 0;
        break;
      case (3 << 3) | 0:
        value = r.int64();
        break;
      case (4 << 3) | 1:
        value = r.double();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return value;
}

/**
 * Adds the common.v1.KeyValue that starts at the reader (a length-delimited field) to `into`.
 * `keep`, when given, skips the value of any other key undecoded (span payloads carry prompts).
 */
export function keyValue(r: WireReader, into: Attributes, keep?: (key: string) => boolean): void {
  const outer = r.enter();
  let key = '';
  let value: AttrValue | undefined;
  while (r.more()) {
    const tag = r.tag();
    if (tag === ((1 << 3) | 2)) key = r.string();
    else if (tag === ((2 << 3) | 2) && keep && key && !keep(key)) r.skip(2);
    else if (tag === ((2 << 3) | 2)) {
      const inner = r.enter();
      value = anyValue(r);
      r.leave(inner);
    } else r.skip(tag & 7);
  }
  r.leave(outer);
  if (key && value !== undefined && (!keep || keep(key))) into[key] = value;
}

/** resource.v1.Resource → its attributes. */
export function resource(r: WireReader): Attributes {
  const attrs: Attributes = {};
  while (r.more()) {
    const tag = r.tag();
    if (tag === ((1 << 3) | 2)) keyValue(r, attrs);
    else r.skip(tag & 7);
  }
  return attrs;
}

/** metrics.v1.HistogramDataPoint (entered). */
function histogramPoint(r: WireReader): HistogramPoint {
  const p: HistogramPoint = { attributes: {}, startMs: 0, timeMs: 0, count: 0, sum: undefined, bounds: [], counts: [], flags: 0 };
  while (r.more()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 9 && wire === 2) keyValue(r, p.attributes);
    else if (field === 2 && wire === 1) p.startMs = nanosToMs(r.ufixed64());
    else if (field === 3 && wire === 1) p.timeMs = nanosToMs(r.ufixed64());
    else if (field === 4 && wire === 1) p.count = r.ufixed64();
    else if (field === 5 && wire === 1) p.sum = r.double();
    else if (field === 6) r.repeated64(wire, p.counts, (x) => x.ufixed64());
    else if (field === 7) r.repeated64(wire, p.bounds, (x) => x.double());
    else if (field === 10 && wire === 0) p.flags = r.varint();
    else r.skip(wire);
  }
  return p;
}

/** Counts the `data_points` (field 1) of a Gauge / Sum / ExponentialHistogram / Summary. */
function countPoints(r: WireReader): number {
  let n = 0;
  while (r.more()) {
    const tag = r.tag();
    if (tag === ((1 << 3) | 2)) n++;
    r.skip(tag & 7);
  }
  return n;
}

/** metrics.v1.Histogram. */
function histogram(r: WireReader): NonNullable<Metric['histogram']> {
  const points: HistogramPoint[] = [];
  let temporality = 0;
  while (r.more()) {
    const tag = r.tag();
    if (tag === ((1 << 3) | 2)) {
      const outer = r.enter();
      points.push(histogramPoint(r));
      r.leave(outer);
    }
    else if (tag === ((2 << 3) | 0)) temporality = r.varint();
    else r.skip(tag & 7);
  }
  return { temporality: (temporality <= 2 ? temporality : 0) as Temporality, points };
}

/** metrics.v1.Metric, or undefined for a metric the mapping does not read. */
function metric(r: WireReader): Metric | undefined {
  let name = '';
  let unit = '';
  let data: { field: number; reader: WireReader } | undefined;
  while (r.more()) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (tag === ((1 << 3) | 2)) name = r.string();
    else if (tag === ((3 << 3) | 2)) unit = r.string();
    else if ((field === 5 || field === 7 || field === 9 || field === 10 || field === 11) && (tag & 7) === 2) data = { field, reader: r.message() };
    else r.skip(tag & 7);
  }
  if (!MAPPED_METRICS.has(name)) return undefined;
  const m: Metric = { name, unit, otherPoints: 0 };
  if (data?.field === 9) m.histogram = histogram(data.reader);
  else if (data) m.otherPoints = countPoints(data.reader);
  return m;
}

/** Decodes an ExportMetricsServiceRequest. Throws `WireError` on a malformed body. */
export function decodeMetricsProtobuf(buf: Uint8Array): ResourceMetrics[] {
  return decodeResourceEnvelope(buf, resource, metric).map(({ resource: res, items }) => ({ resource: res, metrics: items }));
}

/** logs.v1.LogRecord. */
function logRecord(r: WireReader): LogRecord {
  const rec: LogRecord = { timeMs: 0, eventName: '', attributes: {} };
  let observed = 0;
  while (r.more()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === 1) rec.timeMs = nanosToMs(r.ufixed64());
    else if (field === 11 && wire === 1) observed = nanosToMs(r.ufixed64());
    else if (field === 6 && wire === 2) keyValue(r, rec.attributes);
    else if (field === 12 && wire === 2) rec.eventName = r.string();
    else r.skip(wire);
  }
  if (!rec.timeMs) rec.timeMs = observed;
  if (!rec.eventName && typeof rec.attributes['event.name'] === 'string') rec.eventName = rec.attributes['event.name'];
  return rec;
}

/** Decodes an ExportLogsServiceRequest. Throws `WireError` on a malformed body. */
export function decodeLogsProtobuf(buf: Uint8Array): ResourceLogs[] {
  return decodeResourceEnvelope(buf, resource, logRecord).map(({ resource: res, items }) => ({ resource: res, records: items }));
}

/**
 * The decoded form of an OTLP export request, the same whichever encoding it arrived in
 * (protobuf or JSON): only the parts breakerbox maps, times in ms since the epoch.
 */

/** A scalar attribute value; arrays and maps are not used by the mapping and are dropped. */
export type AttrValue = string | number | boolean;
export type Attributes = Record<string, AttrValue>;

/** OTLP's AggregationTemporality enum: 0 unspecified, 1 delta, 2 cumulative. */
export type Temporality = 0 | 1 | 2;
export const DELTA = 1;
export const CUMULATIVE = 2;

/** One explicit-bucket histogram data point. `counts.length === bounds.length + 1` when valid. */
export interface HistogramPoint {
  attributes: Attributes;
  startMs: number;
  timeMs: number;
  count: number;
  sum: number | undefined;
  bounds: number[];
  counts: number[];
  /** DataPointFlags: bit 0 = no recorded value. */
  flags: number;
}

/** A metric the mapping reads (an explicit-bucket histogram), or one it does not. */
export interface Metric {
  name: string;
  unit: string;
  /** Present when the metric is an explicit-bucket histogram. */
  histogram?: { temporality: Temporality; points: HistogramPoint[] };
  /** Data points of any other kind (gauge, sum, exponential histogram, summary). */
  otherPoints: number;
}

export interface ResourceMetrics {
  resource: Attributes;
  metrics: Metric[];
}

export interface LogRecord {
  /** `time_unix_nano`, else `observed_time_unix_nano`, in ms; 0 when neither is set. */
  timeMs: number;
  /** `event_name`, else the `event.name` attribute, else ''. */
  eventName: string;
  attributes: Attributes;
}

export interface ResourceLogs {
  resource: Attributes;
  records: LogRecord[];
}

/** Converts OTLP nanoseconds (a number) to whole ms. */
export const nanosToMs = (nanos: number): number => Math.floor(nanos / 1e6);

/** The metric names the mapping reads; the data points of any other metric are skipped unread. */
export const GENAI_DURATION = 'gen_ai.client.operation.duration';
export const GENAI_TOKENS = 'gen_ai.client.token.usage';
export const MAPPED_METRICS: ReadonlySet<string> = new Set([
  GENAI_DURATION, GENAI_TOKENS, 'gen_ai.client.inference.duration', 'gen_ai.client.inference.usage',
  'gen_ai.client.inference.usage.input_tokens', 'gen_ai.client.inference.usage.output_tokens', 'gen_ai.client.operation.time_to_first_chunk',
]);

/** What a mapped metric gives a window: calls and latency, tokens (of a type, or by `gen_ai.token.type`), or TTFT. */
export type MetricRole = { role: 'duration' } | { role: 'tokens'; type?: 'input' | 'output' } | { role: 'ttft' };

/** The role of a mapped metric name (current and newer GenAI names alike), or undefined. */
export function metricRole(name: string): MetricRole | undefined {
  switch (name) {
    case GENAI_DURATION:
    case 'gen_ai.client.inference.duration':
      return { role: 'duration' };
    case GENAI_TOKENS:
    case 'gen_ai.client.inference.usage':
      return { role: 'tokens' };
    case 'gen_ai.client.inference.usage.input_tokens':
      return { role: 'tokens', type: 'input' };
    case 'gen_ai.client.inference.usage.output_tokens':
      return { role: 'tokens', type: 'output' };
    case 'gen_ai.client.operation.time_to_first_chunk':
      return { role: 'ttft' };
    default:
      return undefined;
  }
}

/** A span event the mapping reads (`exception`, a first-token event). */
export interface SpanEvent {
  name: string;
  /** Nanoseconds since the epoch, as a number (sub-µs digits lost). */
  timeNanos: number;
  attributes: Attributes;
}

/** trace.v1.Span, the parts the mapping reads. Times in ns (a number) so short spans keep µs. */
export interface Span {
  /** Trace and span ids, lower-case hex ('' when absent): which span a child's parent is. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNanos: number;
  endNanos: number;
  attributes: Attributes;
  events: SpanEvent[];
  /** Status.code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  /** W3C `tracestate` (carries OpenTelemetry's sampling threshold `ot=th:`). */
  traceState: string;
}

export interface ResourceSpans {
  resource: Attributes;
  spans: Span[];
}

/**
 * Decodes `ExportTraceServiceRequest` (OTLP protobuf or JSON, opentelemetry-proto v1
 * trace.proto) into the shared model. Only the attributes the span mapping reads are kept:
 * GenAI instrumentations put whole prompts and answers in span attributes, and those are
 * skipped undecoded. Spans are returned whatever they are; `spans-to-windows.ts` picks the
 * model calls among them.
 */
import { UPSTREAM_REQUEST_ID_HEADERS } from '@breakerbox/protocol';
import { keyValue, resource } from './decode-protobuf.ts';
import { attributes, invalid, list, object } from './decode-json.ts';
import type { Attributes, ResourceSpans, Span, SpanEvent } from './model.ts';
import { decodeResourceEnvelope } from './resource-envelope.ts';
import { WireReader } from './wire-reader.ts';

/** Attribute names the span mapping may read; every other value is skipped. */
export function spanAttributeKept(key: string): boolean {
  if (key.startsWith('gen_ai.')) {
    // Content, never read: messages, instructions, tool definitions.
    return !/^gen_ai\.(input|output|system_instructions|prompt|completion|tool\.definitions)/.test(key);
  }
  if (key.startsWith('llm.')) return /^llm\.(model_name|provider|system|request\.type|invocation_parameters|cost\.total|token_count\.(prompt|completion|total)$)/.test(key);
  return SPAN_KEYS.has(key);
}

const SPAN_KEYS: ReadonlySet<string> = new Set([
  'openinference.span.kind', 'server.address', 'error.type', 'http.response.status_code', 'http.status_code',
  'breakerbox.region', 'cloud.region', 'ai.operationId', 'exception.type', 'exception.message', 'time_to_first_token', 'first_token_ms',
  // The provider's request id, for a failed span's evidence sample (span-sample.ts).
  ...UPSTREAM_REQUEST_ID_HEADERS.map((h) => `http.response.header.${h}`),
]);

/** trace.v1.Span.Event (entered through a reader). */
function eventProtobuf(r: WireReader): SpanEvent {
  const e: SpanEvent = { name: '', timeNanos: 0, attributes: {} };
  while (r.more()) {
    const tag = r.tag();
    if (tag === ((1 << 3) | 1)) e.timeNanos = r.ufixed64();
    else if (tag === ((2 << 3) | 2)) e.name = r.string();
    else if (tag === ((3 << 3) | 2)) keyValue(r, e.attributes, spanAttributeKept);
    else r.skip(tag & 7);
  }
  return e;
}

/** trace.v1.Span. */
function spanProtobuf(r: WireReader): Span {
  const s: Span = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, startNanos: 0, endNanos: 0, attributes: {}, events: [], statusCode: 0, statusMessage: '', traceState: '' };
  const hex = (): string => {
    const [start, end] = r.span();
    return r.buf.toString('hex', start, end);
  };
  while (r.more()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === 2) s.traceId = hex();
    else if (field === 2 && wire === 2) s.spanId = hex();
    else if (field === 4 && wire === 2) s.parentSpanId = hex();
    else if (field === 3 && wire === 2) s.traceState = r.string();
    else if (field === 5 && wire === 2) s.name = r.string();
    else if (field === 6 && wire === 0) s.kind = r.varint();
    else if (field === 7 && wire === 1) s.startNanos = r.ufixed64();
    else if (field === 8 && wire === 1) s.endNanos = r.ufixed64();
    else if (field === 9 && wire === 2) keyValue(r, s.attributes, spanAttributeKept);
    else if (field === 11 && wire === 2) s.events.push(eventProtobuf(r.message()));
    else if (field === 15 && wire === 2) {
      const st = r.message();
      while (st.more()) {
        const t = st.tag();
        if (t === ((2 << 3) | 2)) s.statusMessage = st.string();
        else if (t === ((3 << 3) | 0)) s.statusCode = st.varint();
        else st.skip(t & 7);
      }
    } else r.skip(wire);
  }
  return s;
}

/** Decodes an ExportTraceServiceRequest. Throws `WireError` on a malformed body. */
export function decodeTracesProtobuf(buf: Uint8Array): ResourceSpans[] {
  return decodeResourceEnvelope(buf, resource, spanProtobuf).map(({ resource: res, items }) => ({ resource: res, spans: items }));
}

/** A uint64 nanosecond time in OTLP/JSON (a decimal string or a number) as a number. */
function nanosJson(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return Number(v);
  invalid(path, 'must be a non-negative integer (a decimal string or a number)');
}

/** proto3 JSON enums are integers in OTLP/JSON; the SpanKind names are accepted too. */
function kindJson(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 5) return v;
  const names = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
  if (typeof v === 'string' && names.includes(v)) return names.indexOf(v);
  invalid(path, 'must be a SpanKind (0..5)');
}

/** OTLP/JSON carries ids as hex strings (not base64, unlike proto3 JSON's bytes). */
const idJson = (v: unknown): string => (typeof v === 'string' && /^[0-9a-fA-F]{1,64}$/.test(v) ? v.toLowerCase() : '');

const kept = (attrs: Attributes): Attributes => {
  for (const k of Object.keys(attrs)) if (!spanAttributeKept(k)) delete attrs[k];
  return attrs;
};

function spanJson(v: unknown, path: string): Span {
  const s = object(v, path);
  const status = object(s.status, `${path}/status`);
  const code = status.code === 'STATUS_CODE_ERROR' ? 2 : status.code === 'STATUS_CODE_OK' ? 1 : typeof status.code === 'number' ? status.code : 0;
  return {
    traceId: idJson(s.traceId),
    spanId: idJson(s.spanId),
    parentSpanId: idJson(s.parentSpanId),
    name: typeof s.name === 'string' ? s.name : '',
    kind: kindJson(s.kind, `${path}/kind`),
    startNanos: nanosJson(s.startTimeUnixNano, `${path}/startTimeUnixNano`),
    endNanos: nanosJson(s.endTimeUnixNano, `${path}/endTimeUnixNano`),
    attributes: kept(attributes(s.attributes, `${path}/attributes`)),
    events: list(s.events, `${path}/events`).map((e, i) => {
      const ev = object(e, `${path}/events/${i}`);
      return {
        name: typeof ev.name === 'string' ? ev.name : '',
        timeNanos: nanosJson(ev.timeUnixNano, `${path}/events/${i}/timeUnixNano`),
        attributes: kept(attributes(ev.attributes, `${path}/events/${i}/attributes`)),
      };
    }),
    statusCode: code,
    statusMessage: typeof status.message === 'string' ? status.message : '',
    traceState: typeof s.traceState === 'string' ? s.traceState : '',
  };
}

/** Decodes a parsed OTLP/JSON ExportTraceServiceRequest. */
export function decodeTracesJson(body: unknown): ResourceSpans[] {
  const root = object(body, '');
  return list(root.resourceSpans, '/resourceSpans').map((v, i) => {
    const path = `/resourceSpans/${i}`;
    const rs = object(v, path);
    const spans: Span[] = [];
    list(rs.scopeSpans, `${path}/scopeSpans`).forEach((s, j) => {
      const ss = object(s, `${path}/scopeSpans/${j}`);
      list(ss.spans, `${path}/scopeSpans/${j}/spans`).forEach((sp, k) => spans.push(spanJson(sp, `${path}/scopeSpans/${j}/spans/${k}`)));
    });
    return { resource: attributes(object(rs.resource, `${path}/resource`).attributes, `${path}/resource/attributes`), spans };
  });
}

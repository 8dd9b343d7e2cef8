/**
 * OTLP trace request bodies made by the OpenTelemetry SDK itself: spans recorded by a real
 * tracer (start and end times given, so durations are exact) and serialised by
 * `@opentelemetry/otlp-transformer`, the code the OTLP trace exporters use.
 */
import { context, trace, SpanKind, SpanStatusCode, type Attributes, type TraceState } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';

/** One span to record. */
export interface SpanSpec {
  attributes: Attributes;
  durationMs: number;
  kind?: SpanKind;
  /** Fails the span: status ERROR with this message, and an `exception` event of `type`. */
  error?: { message: string; type?: string };
  /** The parent's trace state (a sampler's `ot=th:`). */
  traceState?: TraceState;
  endsAt?: number;
}

/** A tracer whose finished spans become OTLP request bodies. */
export function spanMaker(options: { service: string; instance: string }) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': options.instance })),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('bodies');
  return {
    record(spec: SpanSpec): void {
      const end = spec.endsAt ?? Date.now();
      let ctx = context.active();
      if (spec.traceState) {
        ctx = trace.setSpanContext(ctx, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, traceState: spec.traceState });
      }
      const span = tracer.startSpan('chat', { kind: spec.kind ?? SpanKind.CLIENT, attributes: spec.attributes, startTime: end - spec.durationMs }, ctx);
      if (spec.error) {
        span.recordException({ name: spec.error.type ?? 'Error', message: spec.error.message }, end);
        span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error.message });
      }
      span.end(end);
    },
    /** Serialises the spans finished since the last call. */
    body(encoding: 'protobuf' | 'json'): Buffer {
      const spans = exporter.getFinishedSpans();
      exporter.reset();
      return Buffer.from((encoding === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer).serializeRequest(spans)!);
    },
    shutdown: () => provider.shutdown(),
  };
}

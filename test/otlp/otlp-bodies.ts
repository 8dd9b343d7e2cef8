/**
 * OTLP request bodies made by the OpenTelemetry SDK itself: a meter provider with a manual
 * reader is collected, and the collection serialised by `@opentelemetry/otlp-transformer`
 * (the code the OTLP exporters use), as protobuf or JSON.
 */
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { Meter } from '@opentelemetry/api';
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { DURATION_BUCKETS_S } from './otel-clients.ts';

class ManualReader extends MetricReader {
  constructor(temporality: AggregationTemporality) {
    super({ aggregationTemporalitySelector: () => temporality });
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/** A meter whose collections become OTLP request bodies. */
export function bodyMaker(options: { service: string; instance: string; temporality?: 'delta' | 'cumulative' }) {
  const reader = new ManualReader(options.temporality === 'cumulative' ? AggregationTemporality.CUMULATIVE : AggregationTemporality.DELTA);
  const provider = new MeterProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': options.instance })),
    readers: [reader],
  });
  const meter: Meter = provider.getMeter('bodies');
  const duration = meter.createHistogram('gen_ai.client.operation.duration', { unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } });
  return {
    duration,
    meter,
    /** Collects what was recorded since the last collection and serialises it. */
    async body(encoding: 'protobuf' | 'json'): Promise<Buffer> {
      const { resourceMetrics } = await reader.collect();
      const bytes = (encoding === 'protobuf' ? ProtobufMetricsSerializer : JsonMetricsSerializer).serializeRequest(resourceMetrics)!;
      return Buffer.from(bytes);
    },
    shutdown: () => provider.shutdown(),
  };
}

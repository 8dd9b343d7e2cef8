/**
 * Real OpenTelemetry SDK clients for the OTLP tests: a meter provider with the OTLP/HTTP
 * exporters (protobuf or JSON) recording the GenAI client metrics, and a logger provider
 * with the OTLP/HTTP log exporter. Exports run on `flush()`, never on a timer.
 */
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { Attributes } from '@opentelemetry/api';
import type { AnyValueMap } from '@opentelemetry/api-logs';

/** The GenAI semantic conventions' advised bucket boundaries for operation duration (s). */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** The advised boundaries for token usage. */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576];

/** Options shared by the clients. */
export interface ClientOptions {
  /** Collector base URL, e.g. `http://127.0.0.1:1234`. */
  url: string;
  token: string;
  encoding: 'protobuf' | 'json';
  service: string;
  instance: string;
  temporality?: 'delta' | 'cumulative';
}

/** One export's outcome as the exporter reported it. */
export interface ExportOutcome {
  code: number;
  error?: Error;
}

/** Wraps an exporter so a test can see each export's result (0 = success). */
function recording(exporter: PushMetricExporter, outcomes: ExportOutcome[]): PushMetricExporter {
  return {
    export(metrics: ResourceMetrics, done) {
      exporter.export(metrics, (result) => {
        outcomes.push({ code: result.code, error: result.error });
        done(result);
      });
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter),
    selectAggregation: exporter.selectAggregation?.bind(exporter),
  };
}

/** A meter provider recording `gen_ai.client.operation.duration` and `gen_ai.client.token.usage`. */
export function genAiMeter(options: ClientOptions) {
  const config = {
    url: `${options.url}/v1/metrics`,
    headers: { Authorization: `Bearer ${options.token}` },
    temporalityPreference: options.temporality === 'delta' ? AggregationTemporalityPreference.DELTA : AggregationTemporalityPreference.CUMULATIVE,
  };
  const outcomes: ExportOutcome[] = [];
  const exporter = options.encoding === 'protobuf' ? new ProtoMetricExporter(config) : new JsonMetricExporter(config);
  const reader = new PeriodicExportingMetricReader({ exporter: recording(exporter, outcomes), exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': options.instance })),
    readers: [reader],
  });
  const meter = provider.getMeter('genai-test');
  const duration = meter.createHistogram('gen_ai.client.operation.duration', {
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
  });
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', advice: { explicitBucketBoundaries: TOKEN_BUCKETS } });
  return {
    outcomes,
    /** Records one model call as a GenAI instrumentation does. */
    call(attrs: Attributes, seconds: number, usage?: { input: number; output: number }, errorType?: string) {
      duration.record(seconds, errorType ? { ...attrs, 'error.type': errorType } : attrs);
      if (usage) {
        tokens.record(usage.input, { ...attrs, 'gen_ai.token.type': 'input' });
        tokens.record(usage.output, { ...attrs, 'gen_ai.token.type': 'output' });
      }
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** A logger provider exporting every record at once over OTLP/HTTP. */
export function otelLogger(options: Omit<ClientOptions, 'temporality'>) {
  const config = { url: `${options.url}/v1/logs`, headers: { Authorization: `Bearer ${options.token}` } };
  const exporter = options.encoding === 'protobuf' ? new ProtoLogExporter(config) : new JsonLogExporter(config);
  const provider = new LoggerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': options.instance })),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('resilience-test');
  return {
    emit(eventName: string, attributes: AnyValueMap, timestamp = Date.now()) {
      logger.emit({ eventName, attributes, timestamp });
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

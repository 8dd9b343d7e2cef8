/**
 * An "instrumented app" as a team runs it: the real `openai` client, patched by an unmodified
 * OpenTelemetry instrumentation from npm, calling the fake provider, with the OpenTelemetry
 * SDK exporting spans (and, when asked, the instrumentation's metrics) over OTLP/HTTP to a
 * test collector. Exports run on `flush()`, never on a timer.
 *
 * The client is loaded with `require` after the instrumentation is registered, as in a real
 * app started with `--require`: the instrumentations patch `openai` through its CommonJS load.
 * Each test file registers one instrumentation (vitest runs files in separate processes).
 */
import { createRequire } from 'node:module';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type OpenAI from 'openai';
import type { FakeProvider } from '../support/fake-provider.ts';

/** What the app itself saw of its calls, per model. */
export interface Seen {
  calls: number;
  ok: number;
  /** HTTP status of each failure (0: no response). */
  statuses: number[];
  /** Wall time of each call, ms. */
  latencies: number[];
}

export interface InstrumentedAppOptions {
  collectorUrl: string;
  token: string;
  fake: FakeProvider;
  service: string;
  instrumentation: Instrumentation;
  encoding?: 'protobuf' | 'json';
  /** Also export the instrumentation's metrics to /v1/metrics. */
  metrics?: boolean;
}

export function instrumentedApp(options: InstrumentedAppOptions) {
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': 'pod-1' }));
  const headers = { Authorization: `Bearer ${options.token}` };
  const exporterConfig = { url: `${options.collectorUrl}/v1/traces`, headers };
  const exporter = options.encoding === 'json' ? new JsonTraceExporter(exporterConfig) : new ProtoTraceExporter(exporterConfig);
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000 })] });
  const meterProvider = options.metrics
    ? new MeterProvider({
        resource,
        readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${options.collectorUrl}/v1/metrics`, headers }), exportIntervalMillis: 3_600_000 })],
      })
    : undefined;
  const unregister = registerInstrumentations({ instrumentations: [options.instrumentation], tracerProvider, meterProvider });
  const { OpenAI: Client } = createRequire(import.meta.url)('openai') as { OpenAI: typeof OpenAI };
  const client = new Client({ baseURL: options.fake.openaiBaseUrl, apiKey: options.fake.apiKey, maxRetries: 0 });
  const seen = new Map<string, Seen>();

  return {
    seen,
    /** One chat completion; a failure is recorded, never thrown. */
    async chat(model: string, stream = false): Promise<void> {
      const s = seen.get(model) ?? { calls: 0, ok: 0, statuses: [], latencies: [] };
      seen.set(model, s);
      const started = performance.now();
      s.calls++;
      try {
        const messages = [{ role: 'user' as const, content: 'hello' }];
        if (stream) {
          const chunks = await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
          for await (const _ of chunks) void _;
        } else await client.chat.completions.create({ model, messages });
        s.ok++;
      } catch (err) {
        s.statuses.push((err as { status?: number }).status ?? 0);
      } finally {
        s.latencies.push(performance.now() - started);
      }
    },
    async flush(): Promise<void> {
      await tracerProvider.forceFlush();
      await meterProvider?.forceFlush();
    },
    async flushMetrics(): Promise<void> {
      await meterProvider?.forceFlush();
    },
    async flushSpans(): Promise<void> {
      await tracerProvider.forceFlush();
    },
    async shutdown(): Promise<void> {
      unregister();
      await tracerProvider.shutdown();
      await meterProvider?.shutdown();
    },
  };
}

/** The scenario of issue 24: one healthy model, one failing 60 % with 503, one out of quota. */
export async function runScenario(app: ReturnType<typeof instrumentedApp>, fake: FakeProvider, prefix: string): Promise<{ healthy: string; flaky: string; broke: string }> {
  const healthy = `${prefix}-healthy`;
  const flaky = `${prefix}-flaky`;
  const broke = `${prefix}-broke`;
  fake.script(healthy, { kind: 'ok', latencyMs: 300 }, { persistent: true });
  fake.script(flaky, [{ kind: 'status', status: 503 }, { kind: 'ok' }, { kind: 'status', status: 503 }, { kind: 'ok' }, { kind: 'status', status: 503 }], { persistent: true });
  fake.script(broke, { kind: 'quota' }, { persistent: true });
  for (let i = 0; i < 6; i++) await app.chat(healthy);
  for (let i = 0; i < 10; i++) await app.chat(flaky);
  for (let i = 0; i < 3; i++) await app.chat(broke);
  return { healthy, flaky, broke };
}

/** The classes of an errors map that counted something. */
export const nonZero = (errors: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(errors).filter(([, n]) => n > 0));

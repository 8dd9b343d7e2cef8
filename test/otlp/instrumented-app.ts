/**
 * An "instrumented app" as a team runs it: the real `openai` client, patched by an unmodified
 * OpenTelemetry instrumentation from npm, calling the fake provider, with the OpenTelemetry
 * SDK exporting spans (and, when asked, the instrumentation's metrics) over OTLP/HTTP to a
 * test collector. Exports run on `flush()`, never on a timer.
 *
 * The client is loaded with `require` after the instrumentation is registered, as in a real
 * app started with `--require`: the instrumentations patch `openai` through its CommonJS load.
 * Each test file registers one instrumentation (vitest runs files in separate processes).
 *
 * The official instrumentation (0.21, 0.22) and OpenLLMetry JS (0.27) patch `openai` `<7` only:
 * with `openai@7` they patch nothing and the app exports no span. Their users run `openai@6`, so
 * those files load it (`support/openai-6.ts`).
 */
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type OpenAI from 'openai';
import type { FakeProvider } from '../support/fake-provider.ts';
import { requireOpenAI } from '../support/openai-6.ts';

/** What the app itself saw of its calls, per model. */
export interface Seen {
  calls: number;
  ok: number;
  /** HTTP status of each failure (0: no response). */
  statuses: number[];
  /** Wall time of each call, ms. */
  latencies: number[];
}

/** Where the app exports to: a collector, in one encoding, spans and optionally the instrumentation's metrics. */
export interface ExportTarget {
  collectorUrl: string;
  token: string;
  encoding?: 'protobuf' | 'json';
  /** Also export the instrumentation's metrics to /v1/metrics. */
  metrics?: boolean;
}

/** A span exporter that forwards to the exporter of the current target (one instrumented client per test file). */
class SwitchingSpanExporter implements SpanExporter {
  target: SpanExporter | undefined;
  export(spans: ReadableSpan[], done: (r: ExportResult) => void): void {
    if (!this.target) return done({ code: ExportResultCode.SUCCESS });
    this.target.export(spans, done);
  }
  async shutdown(): Promise<void> {
    await this.target?.shutdown();
  }
}

/** The same for metrics; cumulative, as the OTLP exporter's default. */
class SwitchingMetricExporter implements PushMetricExporter {
  target: PushMetricExporter | undefined;
  export(metrics: ResourceMetrics, done: (r: ExportResult) => void): void {
    if (!this.target) return done({ code: ExportResultCode.SUCCESS });
    this.target.export(metrics, done);
  }
  async forceFlush(): Promise<void> {
    await this.target?.forceFlush();
  }
  async shutdown(): Promise<void> {
    await this.target?.shutdown();
  }
}

/** Which `openai` major the app runs: today's (7), or 6 for instrumentations that patch `<7` only. */
export type OpenAIMajor = 6 | 7;

/**
 * Registers `instrumentation` (once per process: the instrumentations patch the shared
 * `openai` module) and loads the client through it.
 */
export function instrumentedApp(options: { fake: FakeProvider; service: string; instrumentation: Instrumentation; openai: OpenAIMajor }) {
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': options.service, 'service.instance.id': 'pod-1' }));
  const spans = new SwitchingSpanExporter();
  const metrics = new SwitchingMetricExporter();
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(spans, { scheduledDelayMillis: 3_600_000 })] });
  const meterProvider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 })] });
  const unregister = registerInstrumentations({ instrumentations: [options.instrumentation], tracerProvider, meterProvider });
  const loaded = requireOpenAI(options.openai);
  const { OpenAI: Client } = loaded.exports as { OpenAI: typeof OpenAI };
  const client = new Client({ baseURL: options.fake.openaiBaseUrl, apiKey: options.fake.apiKey, maxRetries: 0 });
  const seen = new Map<string, Seen>();

  return {
    seen,
    /** Sends what the app records from now on to `target` (what was recorded before is flushed first by the caller). */
    exportTo(target: ExportTarget): void {
      const headers = { Authorization: `Bearer ${target.token}` };
      const config = { url: `${target.collectorUrl}/v1/traces`, headers };
      spans.target = target.encoding === 'json' ? new JsonTraceExporter(config) : new ProtoTraceExporter(config);
      metrics.target = target.metrics ? new OTLPMetricExporter({ url: `${target.collectorUrl}/v1/metrics`, headers }) : undefined;
    },
    /** One chat completion; a failure is recorded, never thrown. */
    async chat(model: string): Promise<void> {
      const s = seen.get(model) ?? { calls: 0, ok: 0, statuses: [], latencies: [] };
      seen.set(model, s);
      const started = performance.now();
      s.calls++;
      try {
        await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
        s.ok++;
      } catch (err) {
        s.statuses.push((err as { status?: number }).status ?? 0);
      } finally {
        s.latencies.push(performance.now() - started);
      }
    },
    flushSpans: () => tracerProvider.forceFlush(),
    flushMetrics: () => meterProvider.forceFlush(),
    async shutdown(): Promise<void> {
      unregister();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      loaded.remove();
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

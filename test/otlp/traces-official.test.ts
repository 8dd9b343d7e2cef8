import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { instrumentedApp, nonZero, runScenario } from './instrumented-app.ts';
import { expectScenario, verdictOf } from './scenario-checks.ts';

const SERVICE = 'official-app';
let fake: FakeProvider;
let app: ReturnType<typeof instrumentedApp>;
/** What the OpenTelemetry exporters log at warn and error (a partial success is logged as a warning). */
const warnings: string[] = [];
beforeAll(async () => {
  const record = (...args: unknown[]) => warnings.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
  fake = await startFakeProvider();
  app = instrumentedApp({ fake, service: SERVICE, instrumentation: new OpenAIInstrumentation(), openai: 6 });
});
afterAll(async () => {
  await app.shutdown();
  await fake.close();
});

describe('@opentelemetry/instrumentation-openai 0.21 exporting spans to /v1/traces', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`becomes the keys, counts, classes and latency the app saw (${encoding})`, async () => {
      const c = await startCollector({ otlp_traces_hold_ms: 0 });
      try {
        app.exportTo({ collectorUrl: c.url, token: c.tokens.ingest, encoding });
        const models = await runScenario(app, fake, `official-${encoding}`);
        await app.flushSpans();
        await expectScenario(c, app, models, SERVICE);
      } finally {
        await c.close();
      }
    });
  }

  it('counts a service that sends its calls as spans and as metrics once: the spans at once, the metrics only for what spans did not count, and no warning in the exporter\'s log', async () => {
    warnings.length = 0;
    const c = await startCollector({ otlp_traces_hold_ms: 0 });
    app.exportTo({ collectorUrl: c.url, token: c.tokens.ingest, metrics: true });
    const models = await runScenario(app, fake, 'both');
    // As the SDK's defaults do it: spans leave first (5 s batches), metrics later (60 s).
    await app.flushSpans();
    await app.flushMetrics();
    // More calls once the collector knows the service reports metrics: still counted once.
    for (let i = 0; i < 4; i++) await app.chat(models.healthy);
    await app.flushSpans();
    await app.flushMetrics();
    // Metrics first this time (a span export delayed past the metrics'): the metrics count these, their spans are skipped.
    for (let i = 0; i < 3; i++) await app.chat(models.healthy);
    await app.flushMetrics();
    await app.flushSpans();
    expect(warnings).toEqual([]);
    app.exportTo({ collectorUrl: 'http://127.0.0.1:9', token: 'none' });

    const h = await verdictOf(c, models.healthy);
    expect(h.clients).toMatchObject({ calls: 13, ok: 13 });
    const f = await verdictOf(c, models.flaky);
    expect(f.clients).toMatchObject({ calls: 10, ok: 4, failed: 6 });
    expect(f.clients.errors.server).toBe(6);
    const b = await verdictOf(c, models.broke);
    // The spans counted these first, and they tell quota apart (metrics carry only error.type RateLimitError).
    expect(b.clients).toMatchObject({ calls: 3, failed: 3 });
    expect(nonZero(b.clients.errors)).toEqual({ quota: 3 });

    // Stopping writes every tally still held: none of this service's spans is left to add.
    await c.app.close();
    const db = new Database(c.dbPath, { readonly: true });
    const { calls } = db
      .prepare(`SELECT SUM(w.calls) AS calls FROM window_events w JOIN keys k ON k.id = w.key_id WHERE k.model LIKE 'both-%'`)
      .get() as { calls: number };
    db.close();
    expect(calls).toBe(26); // 13 + 10 + 3, not twice
    await c.close();
  });
});

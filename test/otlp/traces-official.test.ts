import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { instrumentedApp, nonZero, runScenario } from './instrumented-app.ts';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

const verdictOf = async (c: Awaited<ReturnType<typeof startCollector>>, model: string) => {
  const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
  return verdicts.find((v) => v.key.model === model);
};

describe('@opentelemetry/instrumentation-openai 0.21 exporting spans to /v1/traces', () => {
  it('becomes the keys, counts, classes and latency the app saw', async () => {
    const c = await startCollector({ otlp_traces_hold_ms: 0 });
    const app = instrumentedApp({ collectorUrl: c.url, token: c.tokens.ingest, fake, service: 'official-spans', instrumentation: new OpenAIInstrumentation() });
    try {
      const { healthy, flaky, broke } = await runScenario(app, fake, 'official');
      await app.flush();
      expect(app.seen.get(flaky)).toMatchObject({ calls: 10, ok: 4 });
      expect(app.seen.get(flaky)!.statuses).toEqual(Array(6).fill(503));
      expect(app.seen.get(broke)!.statuses).toEqual([429, 429, 429]);

      const h = await verdictOf(c, healthy);
      expect(h.key).toEqual({ provider: 'openai', endpoint: 'chat', model: healthy });
      expect(h.clients).toMatchObject({ calls: 6, ok: 6, failed: 0 });
      // Every healthy call took 300 ms (the fake's delay) plus a little: the 250..500 ms bucket.
      expect(Math.min(...app.seen.get(healthy)!.latencies)).toBeGreaterThan(250);
      expect(h.clients.latency_ms.p50).toBeGreaterThan(250);
      expect(h.clients.latency_ms.p50).toBeLessThanOrEqual(500);
      expect(h.clients.input_tokens).toBeGreaterThan(0);
      expect(h.clients.output_tokens).toBe(48); // 8 tokens per answer

      const f = await verdictOf(c, flaky);
      expect(f.clients).toMatchObject({ calls: 10, ok: 4, failed: 6 });
      expect(nonZero(f.clients.errors)).toEqual({ server: 6 });
      const b = await verdictOf(c, broke);
      expect(b.clients).toMatchObject({ calls: 3, ok: 0, failed: 3 });
      expect(nonZero(b.clients.errors)).toEqual({ quota: 3 }); // RateLimitError + "exceeded your current quota"

      const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
      const row = keys.find((k) => k.key.model === healthy);
      expect(row.services).toEqual(['official-spans']);
    } finally {
      await app.shutdown();
      await c.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from './collector.ts';
import { genAiMeter } from './otel-clients.ts';
import { batch, windowEvent } from '../server/helpers.ts';
import { sqlOf } from '../support/sql.ts';

const GPT = { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'server.address': 'api.openai.com' };
const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };

let c: Awaited<ReturnType<typeof startCollector>>;
beforeAll(async () => {
  c = await startCollector();
});
afterAll(async () => {
  await c.close();
});

const keyQuery = (k: { provider: string; endpoint: string; model: string }) =>
  `provider=${encodeURIComponent(k.provider)}&endpoint=${encodeURIComponent(k.endpoint)}&model=${encodeURIComponent(k.model)}`;

describe('an unmodified OpenTelemetry SDK exporting GenAI metrics', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`shows up as a breakerbox key with calls, errors by class, latency and tokens (${encoding})`, async () => {
      const model = `llama-${encoding}/70b:v1@2`;
      const attrs = { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'server.address': 'api.together.xyz' };
      const meter = genAiMeter({ url: c.url, token: c.tokens.ingest, encoding, service: `py-${encoding}`, instance: 'pod-1' });
      for (let i = 0; i < 40; i++) meter.call(attrs, 0.3, { input: 100, output: 20 });
      for (let i = 0; i < 8; i++) meter.call(attrs, 2, undefined, '503');
      for (let i = 0; i < 4; i++) meter.call(attrs, 30, undefined, 'openai.APITimeoutError');
      meter.call(attrs, 0.1, undefined, 'SomethingNobodyKnows');
      await meter.flush();
      await meter.shutdown();
      expect(meter.outcomes.map((o) => o.code)).toContain(0);
      expect(meter.outcomes.every((o) => o.code === 0)).toBe(true);

      // server.address api.together.xyz names the provider as the SDK would, and the model round-trips.
      const key = { provider: 'together', endpoint: 'chat', model };
      const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
      const row = keys.find((k) => k.key.model === model);
      expect(row.key).toEqual(key);
      expect(row.services).toEqual([`py-${encoding}`]);
      expect(row.headline.calls).toBe(53);

      const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
      const v = verdicts.find((x) => x.key.model === model);
      expect(v.clients.calls).toBe(53);
      expect(v.clients.ok).toBe(40);
      expect(v.clients.errors.server).toBe(8);
      expect(v.clients.errors.timeout).toBe(4);
      expect(v.clients.failed).toBe(13);
      expect(v.clients.errors.unclassified).toBe(1); // an error.type no rule places: its own figure, neither ours nor the provider's
      expect(v.clients.errors.bad_request).toBe(0);
      expect(v.clients.input_tokens).toBe(4000);
      expect(v.clients.output_tokens).toBe(800);
      // 40 of 53 calls at 0.3 s: the median lies in the 250..500 ms rollup bucket.
      expect(v.clients.latency_ms.p50).toBeGreaterThan(250);
      expect(v.clients.latency_ms.p50).toBeLessThanOrEqual(500);
      expect(v.clients.latency_ms.p99).toBeGreaterThan(10_000);
      expect(v.clients.degraded).toBe(true);

      const raw = sqlOf(c.app).prepare(`SELECT w.errors FROM window_events w JOIN keys k ON k.id = w.key_id WHERE k.model = ?`).all(model) as { errors: string }[];
      expect(raw.map((r) => JSON.parse(r.errors))).toEqual([{ server: 8, timeout: 4, unclassified: 1 }]);
    });
  }

  it('turns cumulative counters into deltas across exports and across an exporter restart', async () => {
    const model = 'cumulative-model';
    const attrs = { ...GPT, 'gen_ai.request.model': model };
    const first = genAiMeter({ url: c.url, token: c.tokens.ingest, encoding: 'protobuf', service: 'restarts', instance: 'pod-1' });
    for (let i = 0; i < 10; i++) first.call(attrs, 0.2);
    await first.flush();
    for (let i = 0; i < 5; i++) first.call(attrs, 0.2);
    await first.flush(); // cumulative 15: a delta of 5
    await first.flush(); // nothing new: a delta of 0
    await first.shutdown();
    // The process restarts: a new provider whose cumulative counts start again from zero.
    const second = genAiMeter({ url: c.url, token: c.tokens.ingest, encoding: 'protobuf', service: 'restarts', instance: 'pod-1' });
    for (let i = 0; i < 3; i++) second.call(attrs, 0.2, undefined, '429');
    await second.flush();
    await second.shutdown();
    expect([...first.outcomes, ...second.outcomes].every((o) => o.code === 0)).toBe(true);

    const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
    const v = verdicts.find((x) => x.key.model === model);
    expect(v.clients.calls).toBe(18);
    expect(v.clients.ok).toBe(15);
    expect(v.clients.errors.rate_limit).toBe(3);
  });

  it('accepts delta temporality as sent', async () => {
    const model = 'delta-model';
    const meter = genAiMeter({ url: c.url, token: c.tokens.ingest, encoding: 'json', service: 'deltas', instance: 'pod-1', temporality: 'delta' });
    for (let i = 0; i < 7; i++) meter.call({ ...GPT, 'gen_ai.request.model': model }, 0.05);
    await meter.flush();
    for (let i = 0; i < 2; i++) meter.call({ ...GPT, 'gen_ai.request.model': model }, 0.05);
    await meter.flush();
    await meter.shutdown();
    const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
    expect(verdicts.find((x) => x.key.model === model).clients.calls).toBe(9);
  });

  it('makes one key of the same model reported by an SDK service and an OTLP service, split by service', async () => {
    const sdk = batch([windowEvent({ key: KEY, calls: 20, ok: 20, slow: 0, errors: {}, retries: 0, cold_excluded: 0, latency_ms: { bounds: [100, 500, 1000], counts: [10, 10, 0, 0] }, ttft_ms: { bounds: [100, 500], counts: [10, 10, 0] } }, 2_000)], { service: 'ts-service', instance: 'pod-a' });
    const res = await c.app.inject({ method: 'POST', url: '/v1/telemetry', payload: sdk, headers: { authorization: `Bearer ${c.tokens.ingest}` } });
    expect(res.statusCode).toBe(200);
    const meter = genAiMeter({ url: c.url, token: c.tokens.ingest, encoding: 'protobuf', service: 'py-service', instance: 'worker-1' });
    for (let i = 0; i < 12; i++) meter.call(GPT, 0.4);
    await meter.flush();
    await meter.shutdown();

    const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
    const rows = keys.filter((k) => k.key.provider === 'openai' && k.key.model === 'gpt-4o-mini');
    expect(rows).toHaveLength(1);
    expect(rows[0].services.sort()).toEqual(['py-service', 'ts-service']);
    const detail = await c.read<any>(`/api/key?${keyQuery(KEY)}&window=15m`);
    const byService = Object.fromEntries(detail.services.map((s: any) => [s.service, s.calls]));
    expect(byService).toEqual({ 'ts-service': 20, 'py-service': 12 });
    expect(detail.clients.calls).toBe(32);
    const instance = detail.instances.find((i: any) => i.service === 'py-service');
    expect(instance.instance).toBe('worker-1');
    expect(instance.sdk).toMatch(/^otel-nodejs\//);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batch, makeApp, rowCounts, testConfig, windowEvent } from '../server/helpers.ts';

type TestApp = Awaited<ReturnType<typeof makeApp>>;
let t: TestApp;
const MINUTE = 60_000;
beforeEach(() => {
  // A fixed second early in a minute: the per-minute key window never turns mid-test.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Math.floor(Date.now() / MINUTE) * MINUTE + 1_000);
});
afterEach(async () => {
  vi.useRealTimers();
  await t.close();
});

const defaults = testConfig(':memory:').ingest;
const withKeys = (keys: Partial<typeof defaults.keys>) => makeApp({ ingest: { ...defaults, keys: { ...defaults.keys, ...keys } } });

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
const model = (n: number) => `minted-model-${n}`;

/** An OTLP/JSON metrics export: `points` delta duration points per model, for one resource. */
function metricsBody(models: number[], o: { points?: number; instance?: string } = {}) {
  const end = Date.now() * 1e6;
  const dataPoints = models.flatMap((m) => Array.from({ length: o.points ?? 1 }, (_, i) => ({
    attributes: [attr('gen_ai.provider.name', 'openai'), attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', model(m)), attr('error.type', i === 0 ? '' : `e${i}`)],
    startTimeUnixNano: String(end - 10_000 * 1e6), timeUnixNano: String(end), count: '2', sum: 0.4, bucketCounts: ['2', '0'], explicitBounds: [1],
  })));
  return JSON.stringify({
    resourceMetrics: [{
      resource: { attributes: [attr('service.name', 'otel-svc'), attr('service.instance.id', o.instance ?? 'i-1')] },
      scopeMetrics: [{ metrics: [{ name: 'gen_ai.client.operation.duration', unit: 's', histogram: { aggregationTemporality: 1, dataPoints } }] }],
    }],
  });
}

/** An OTLP/JSON logs export: one breaker state change per model. */
function logsBody(models: number[]) {
  return JSON.stringify({
    resourceLogs: [{
      resource: { attributes: [attr('service.name', 'otel-svc'), attr('service.instance.id', 'i-1')] },
      scopeLogs: [{
        logRecords: models.map((m) => ({
          timeUnixNano: String(Date.now() * 1e6), eventName: 'circuitbreaker.state_change',
          attributes: [attr('gen_ai.provider.name', 'openai'), attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', model(m)), attr('circuitbreaker.state', 'open')],
        })),
      }],
    }],
  });
}

const post = (url: string, payload: string, token = t.tokens.ingest) =>
  t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });

describe('OTLP ingest under the per-token and per-source key caps', () => {
  it('stores the keys within a live cap and refuses the data points of the rest in partial_success, naming the limit', async () => {
    t = await withKeys({ live_per_token: 3 });
    expect((await post('/v1/metrics', metricsBody([0, 1]))).json()).toEqual({});
    const res = await post('/v1/metrics', metricsBody([0, 2, 3, 4], { points: 2 }));
    expect(res.statusCode).toBe(200);
    expect(res.json().partialSuccess).toEqual({
      rejectedDataPoints: '4', // two keys over the cap, two points each
      errorMessage: expect.stringContaining('ingest.keys.live_per_token (3'),
    });
    expect(rowCounts(t.app).keys).toBe(3);
    expect(t.app.ingestLimits.snapshot().live_keys_per_token).toBe(1);
    const page = (await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${t.tokens.read}` } })).body;
    expect(page).toMatch(/^breakerbox_ingest_limit_refusals_total\{limit="live_keys_per_token"\} 1$/m);
    // The keys already live keep coming through in full.
    expect((await post('/v1/metrics', metricsBody([0, 1, 2]))).json()).toEqual({});
  });

  it('answers 429 with Retry-After and RESOURCE_EXHAUSTED once a token creates too many new keys this minute, storing nothing', async () => {
    t = await withKeys({ new_per_minute_per_token: 5 });
    expect((await post('/v1/metrics', metricsBody([0, 1, 2, 3]))).statusCode).toBe(200);
    const before = rowCounts(t.app);
    const res = await post('/v1/metrics', metricsBody([0, 4, 5]));
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.json()).toMatchObject({ code: 8, error: { code: 'BB_ERR_INGEST_KEY_RATE' } });
    expect(res.json().message).toContain('ingest.keys.new_per_minute_per_token (5)');
    expect(rowCounts(t.app)).toEqual(before);
    expect(t.app.ingestLimits.snapshot().new_keys_per_token).toBe(1);
    // Next minute the retried export goes through whole.
    vi.setSystemTime(Date.now() + MINUTE);
    expect((await post('/v1/metrics', metricsBody([0, 4, 5]))).json()).toEqual({});
    expect(rowCounts(t.app).keys).toBe(6);
  });

  it('keeps the first keys of an export that alone creates more new keys than a minute allows, refusing the rest', async () => {
    t = await withKeys({ new_per_minute_per_source: 3 });
    const res = await post('/v1/metrics', metricsBody([0, 1, 2, 3, 4]));
    expect(res.statusCode).toBe(200);
    expect(res.json().partialSuccess).toEqual({ rejectedDataPoints: '2', errorMessage: expect.stringContaining('ingest.keys.new_per_minute_per_source (3') });
    expect(rowCounts(t.app).keys).toBe(3);
  });

  it('counts log records of refused keys as rejectedLogRecords', async () => {
    t = await withKeys({ live_per_source: 2 });
    const res = await post('/v1/logs', logsBody([0, 1, 2]));
    expect(res.statusCode).toBe(200);
    expect(res.json().partialSuccess).toEqual({ rejectedLogRecords: '1', errorMessage: expect.stringContaining('ingest.keys.live_per_source (2') });
    expect(rowCounts(t.app).transition_events).toBe(2);
    expect(t.app.ingestLimits.snapshot().live_keys_per_source).toBe(1);
  });

  it('shares a token\'s caps with protocol v1, and never counts one token against another', async () => {
    t = await withKeys({ live_per_token: 2 });
    const v1 = await t.app.inject({
      method: 'POST', url: '/v1/telemetry',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
      payload: JSON.stringify(batch([windowEvent({ key: { provider: 'openai', endpoint: 'chat', model: 'v1-a' } }), windowEvent({ key: { provider: 'openai', endpoint: 'chat', model: 'v1-b' } })])),
    });
    expect(v1.statusCode).toBe(200);
    expect((await post('/v1/metrics', metricsBody([0]))).json().partialSuccess.rejectedDataPoints).toBe('1');
    const other = t.app.tokens.create('other-otel', ['ingest']).secret;
    expect((await post('/v1/metrics', metricsBody([0, 1], { instance: 'i-2' }), other)).json()).toEqual({});
  });
});

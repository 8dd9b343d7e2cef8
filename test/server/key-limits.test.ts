import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { batch, makeApp, rowCounts, testConfig, windowEvent } from './helpers.ts';

type TestApp = Awaited<ReturnType<typeof makeApp>>;
let t: TestApp;
beforeEach(() => {
  // A fixed second early in a minute: the per-minute key window never turns mid-test.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
});
afterEach(async () => {
  vi.useRealTimers();
  await t.close();
});

const defaults = testConfig(':memory:').ingest;
const withKeys = (keys: Partial<typeof defaults.keys>) => makeApp({ ingest: { ...defaults, keys: { ...defaults.keys, ...keys } } });

const keyN = (n: number): BreakerKey => ({ provider: 'together', endpoint: 'chat', model: `minted-model-${n}` });
const windows = (from: number, count: number) => Array.from({ length: count }, (_, i) => windowEvent({ key: keyN(from + i) }));

const post = (token: string, events: ReturnType<typeof windows>, source = { service: 'svc', instance: 'pod-1' }) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    payload: JSON.stringify(batch(events, source)),
  });

describe('caps on breaker keys per token and per source', () => {
  it('answers 429 with Retry-After naming the limit once a token creates too many new keys in a minute', async () => {
    t = await withKeys({ new_per_minute_per_token: 10 });
    expect((await post(t.tokens.ingest, windows(0, 8))).statusCode).toBe(200);
    const res = await post(t.tokens.ingest, windows(8, 5));
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('BB_ERR_INGEST_KEY_RATE');
    expect(res.json().error.message).toContain('ingest.keys.new_per_minute_per_token (10)');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rowCounts(t.app).keys).toBe(8);
    expect(t.app.ingestLimits.snapshot().new_keys_per_token).toBe(1);
  });

  it('answers 400 to a single batch creating more new keys than a minute allows (retrying cannot help)', async () => {
    t = await withKeys({ new_per_minute_per_token: 10 });
    const res = await post(t.tokens.ingest, windows(0, 11));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('BB_ERR_INGEST_TOO_MANY_KEYS');
    expect(res.json().error.message).toContain('ingest.keys.new_per_minute_per_token (10)');
  });

  it('lets new keys through again in the next minute', async () => {
    t = await withKeys({ new_per_minute_per_token: 5 });
    expect((await post(t.tokens.ingest, windows(0, 5))).statusCode).toBe(200);
    expect((await post(t.tokens.ingest, windows(5, 1))).statusCode).toBe(429);
    vi.setSystemTime(Date.now() + 60_000);
    expect((await post(t.tokens.ingest, windows(5, 5))).statusCode).toBe(200);
  });

  it('keeps accepting keys that already exist while new ones are refused', async () => {
    t = await withKeys({ new_per_minute_per_token: 5 });
    expect((await post(t.tokens.ingest, windows(0, 5))).statusCode).toBe(200);
    expect((await post(t.tokens.ingest, windows(5, 1))).statusCode).toBe(429);
    expect((await post(t.tokens.ingest, windows(0, 5))).statusCode).toBe(200);
  });

  it('never counts one token against another', async () => {
    t = await withKeys({ new_per_minute_per_token: 5 });
    const other = t.app.tokens.create('other-sender', ['ingest']).secret;
    expect((await post(t.tokens.ingest, windows(0, 5))).statusCode).toBe(200);
    expect((await post(t.tokens.ingest, windows(5, 1))).statusCode).toBe(429);
    expect((await post(other, windows(100, 5), { service: 'other', instance: 'pod-9' })).statusCode).toBe(200);
  });

  it('answers 400 naming the limit and the first key over it once a token reports too many live keys', async () => {
    t = await withKeys({ live_per_token: 6 });
    expect((await post(t.tokens.ingest, windows(0, 4))).statusCode).toBe(200);
    const res = await post(t.tokens.ingest, windows(4, 4));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_TOO_MANY_KEYS', path: '/events/2/key' });
    expect(res.json().error.message).toContain('ingest.keys.live_per_token');
    expect(rowCounts(t.app).keys).toBe(4);
    // Keys already live still come through.
    expect((await post(t.tokens.ingest, windows(0, 4))).statusCode).toBe(200);
    expect(t.app.ingestLimits.snapshot().live_keys_per_token).toBe(1);
  });

  it('caps each source on its own, so one runaway instance does not use up its token', async () => {
    t = await withKeys({ live_per_source: 3 });
    expect((await post(t.tokens.ingest, windows(0, 3), { service: 'svc', instance: 'runaway' })).statusCode).toBe(200);
    const res = await post(t.tokens.ingest, windows(3, 1), { service: 'svc', instance: 'runaway' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('ingest.keys.live_per_source');
    expect((await post(t.tokens.ingest, windows(3, 3), { service: 'svc', instance: 'healthy' })).statusCode).toBe(200);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, batch, makeApp, oneOfEach, rowCounts, windowEvent } from './helpers.ts';
import { sqlOf } from '../support/sql.ts';

type TestApp = Awaited<ReturnType<typeof makeApp>>;

let t: TestApp;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}`, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const refused = async (body: unknown, path: string, contains?: string) => {
  const res = await post(body);
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_INVALID', path });
  if (contains) expect(res.json().error.message).toContain(contains);
  for (const [table, n] of Object.entries(rowCounts(t.app))) expect({ table, n }).toEqual({ table, n: 0 });
};

describe('ingest bounds keep the rollups sane', () => {
  it('refuses counts of 1e308 and money of 1.5e308, which used to turn key_minutes.calls into Infinity', async () => {
    const huge = windowEvent({ calls: 1e308, ok: 1e308, errors: { server: 1e308 }, slow: 0, cost_usd: 1.5e308 });
    await refused(batch([huge]), '/events/0/calls');
    await refused(batch([windowEvent({ cost_usd: 1.5e308 })]), '/events/0/cost_usd');
    await refused(batch([windowEvent({ cost_usd: 2_000_000 })]), '/events/0/cost_usd');
  });

  it('refuses a count past Number.MAX_SAFE_INTEGER instead of storing it rounded', async () => {
    // 9007199254740993 parses to …992, which is itself above the largest safe integer.
    const text = JSON.stringify(batch([windowEvent({ calls: 1 })])).replace('"calls":1,', '"calls":9007199254740993,');
    await refused(text, '/events/0/calls');
  });

  it('accepts counts up to the largest safe integer and reads them back exactly', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const e = windowEvent({ calls: max, ok: 0, slow: 0, errors: {}, retries: 0, latency_ms: { bounds: [], counts: [max] }, ttft_ms: undefined });
    expect((await post(batch([e]))).statusCode).toBe(200);
    expect(sqlOf(t.app).prepare('SELECT calls FROM window_events').get()).toEqual({ calls: max });
  });

  it('refuses a window whose ok + slow + errors exceed its calls (9 errors and 7 slow out of 1 call)', async () => {
    await refused(batch([windowEvent({ calls: 1, ok: 0, slow: 7, errors: { server: 9 }, retries: 0, cold_excluded: 0, latency_ms: { bounds: [], counts: [1] }, ttft_ms: undefined })]),
      '/events/0/calls', 'must not exceed calls');
  });

  it('refuses the other per-window invariants, naming the field', async () => {
    await refused(batch([windowEvent({ retries: 121 })]), '/events/0/retries');
    await refused(batch([windowEvent({ cold_excluded: 121 })]), '/events/0/cold_excluded');
    await refused(batch([windowEvent({ half_open: { ok: 100, failed: 21 } })]), '/events/0/half_open');
    await refused(batch([windowEvent({ latency_ms: { bounds: [100], counts: [100, 21] } })]), '/events/0/latency_ms/counts');
    await refused(batch([windowEvent({ ttft_ms: { bounds: [100], counts: [100, 21] } })]), '/events/0/ttft_ms/counts');
  });

  it('refuses tasks whose parts exceed their whole', async () => {
    const tasks = oneOfEach()[2]!;
    await refused(batch([{ ...tasks, levels: { '0': 41 } } as never]), '/events/0/levels');
    await refused(batch([{ ...tasks, degraded: 43 } as never]), '/events/0/degraded');
    await refused(batch([{ ...tasks, fallback: { invoked: 1, failed: 2 } } as never]), '/events/0/fallback/failed');
  });

  it('refuses an error class outside the taxonomy in one place, listing the allowed ones', async () => {
    await refused(batch([windowEvent({ errors: { server: 12, overloaded: 3 } as never })]), '/events/0/errors/overloaded', 'allowed: rate_limit');
  });

  it('refuses a lone UTF-16 surrogate in a model id, naming the field', async () => {
    const text = JSON.stringify(batch([windowEvent({ key: { ...KEY, model: 'bad-MARK' } })])).replace('bad-MARK', 'bad-\\ud800');
    await refused(text, '/events/0/key/model', 'well-formed UTF-16');
  });

  it('stores a model id holding a surrogate pair (an emoji sent escaped) and reads it back exactly', async () => {
    const model = 'fine-\u{1F600}-model';
    const text = JSON.stringify(batch([windowEvent({ key: { ...KEY, model: 'MARK' } })])).replace('MARK', 'fine-\\ud83d\\ude00-model');
    expect((await post(text)).statusCode).toBe(200);
    const res = await t.app.inject({ url: '/api/keys', headers: { authorization: `Bearer ${t.tokens.read}` } });
    expect(res.json().keys.map((k: { key: { model: string } }) => k.key.model)).toEqual([model]);
  });

  it('refuses a probe location named __proto__, which vanished from /api/verdicts and /api/key', async () => {
    const probe = oneOfEach()[4]!;
    await refused(batch([{ ...probe, location: '__proto__' } as never]), '/events/0/location', 'reserved');
  });

  it('answers 415 to Content-Type text/plain, as docs/protocol.md promises', async () => {
    const res = await post(JSON.stringify(batch(oneOfEach())), { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('BB_ERR_INGEST_UNSUPPORTED_TYPE');
  });

  it('counts each refusal by the limit that made it', async () => {
    await post(batch([windowEvent({ retries: 999 })]));
    await post('{not json');
    expect(t.app.ingestLimits.snapshot()).toMatchObject({ invalid: 2 });
  });
});

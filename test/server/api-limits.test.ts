import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { appWithLogs, batch, makeApp, windowEvent } from './helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const keyN = (n: number): BreakerKey => ({ provider: 'p', endpoint: 'chat', model: `m-${String(n).padStart(3, '0')}` });

async function appWithKeys(n: number, api?: { default_limit: number; max_limit: number; read_worker: boolean }) {
  const t = await makeApp(api ? { api } : {});
  cleanups.push(() => t.close());
  const events = Array.from({ length: n }, (_, i) => windowEvent({ key: keyN(i), calls: 120 + i }));
  const res = await t.app.inject({
    method: 'POST', url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
    payload: JSON.stringify(batch(events)),
  });
  expect(res.statusCode).toBe(200);
  const get = (url: string) => t.app.inject({ url, headers: { authorization: `Bearer ${t.tokens.read}` } });
  return { t, get };
}

describe('read API lists are paged', () => {
  it('/api/keys answers the default page size and a cursor that walks every key once, in order', async () => {
    const { get } = await appWithKeys(23, { default_limit: 10, max_limit: 50, read_worker: true });
    const seen: string[] = [];
    let url = '/api/keys';
    let pages = 0;
    let window: unknown;
    for (;;) {
      const body = (await get(url)).json();
      pages++;
      expect(body.total).toBe(23);
      expect(body.keys.length).toBeLessThanOrEqual(10);
      window ??= body.window;
      expect(body.window).toEqual(window);
      seen.push(...body.keys.map((k: { key: BreakerKey }) => k.key.model));
      if (!body.next_cursor) break;
      url = `/api/keys?cursor=${body.next_cursor}`;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => keyN(i).model));
  });

  it('/api/verdicts takes limit and cursor, worst first across pages', async () => {
    const { get } = await appWithKeys(12);
    const first = (await get('/api/verdicts?limit=5')).json();
    expect(first.verdicts).toHaveLength(5);
    const rest = (await get(`/api/verdicts?limit=50&cursor=${first.next_cursor}`)).json();
    expect(rest.verdicts).toHaveLength(7);
    expect(rest.next_cursor).toBeNull();
    const all = (await get('/api/verdicts?limit=50')).json().verdicts;
    expect([...first.verdicts, ...rest.verdicts]).toEqual(all);
  });

  it('/api/probes pages by target: every location and target once across pages, location health on each page', async () => {
    const t = await makeApp({ api: { default_limit: 4, max_limit: 50, read_worker: false } });
    cleanups.push(() => t.close());
    const ts = Date.now() - 60_000;
    const events = ['ap-south', 'eu-west', 'us-east'].flatMap((location) =>
      Array.from({ length: 3 }, (_, i) => ({
        type: 'probe' as const, ts, key: keyN(i), location, outcome: 'ok' as const, status: 200, latency_ms: { total: 100 + i },
      })));
    const res = await t.app.inject({
      method: 'POST', url: '/v1/telemetry',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
      payload: JSON.stringify(batch(events)),
    });
    expect(res.statusCode).toBe(200);
    const get = async (url: string) => (await t.app.inject({ url, headers: { authorization: `Bearer ${t.tokens.read}` } })).json();
    const to = Date.now();
    const whole = await get(`/api/probes?limit=50&to=${to}`);
    expect(whole.total).toBe(9);
    expect(whole.next_cursor).toBeNull();
    const seen: string[] = [];
    const pages: { location: string; health: unknown }[][] = [];
    let body = await get(`/api/probes?to=${to}`);
    for (;;) {
      expect(body.total).toBe(9);
      expect(body.window).toEqual(whole.window);
      pages.push(body.locations);
      for (const l of body.locations) for (const target of l.targets) seen.push(`${l.location} ${target.key.model}`);
      if (!body.next_cursor) break;
      body = await get(`/api/probes?cursor=${body.next_cursor}`);
    }
    expect(pages.map((p) => p.reduce((n, l: any) => n + l.targets.length, 0))).toEqual([4, 4, 1]);
    expect(seen).toEqual(whole.locations.flatMap((l: any) => l.targets.map((target: any) => `${l.location} ${target.key.model}`)));
    // eu-west's targets span pages 1 and 2: it is listed on both, judged over all of them.
    const eu = whole.locations.find((l: any) => l.location === 'eu-west');
    for (const p of pages.slice(0, 2)) expect(p.find((l) => l.location === 'eu-west')).toMatchObject({ health: eu.health, last_ts: eu.last_ts });
    expect((await t.app.inject({ url: '/api/probes?limit=51', headers: { authorization: `Bearer ${t.tokens.read}` } })).statusCode).toBe(400);
  });

  it('refuses a limit over api.max_limit and a cursor it did not give, naming the parameter', async () => {
    const { get } = await appWithKeys(1);
    const big = await get('/api/keys?limit=999999');
    expect(big.statusCode).toBe(400);
    expect(big.json().error.path).toBe('/querystring/limit');
    const forged = await get('/api/verdicts?cursor=not-a-cursor');
    expect(forged.statusCode).toBe(400);
    expect(forged.json().error.path).toBe('/querystring/cursor');
  });
});

describe('whole-fleet reads', () => {
  it('are computed in the read worker, not on the event loop, and agree with the main thread', async () => {
    const { t, get } = await appWithKeys(6);
    const here = { verdicts: await t.app.verdicts.verdicts(t.app.resolveWindow({ window: '15m' }, '15m')) };
    const onMain = vi.spyOn(t.app.verdicts, 'verdicts');
    const onMainKeys = vi.spyOn(t.app.verdicts, 'keys');
    const onMainPage = vi.spyOn(t.app.verdicts, 'verdictsPage');
    const verdicts = (await get('/api/verdicts')).json().verdicts;
    const keys = (await get('/api/keys')).json().keys;
    expect(onMain).not.toHaveBeenCalled();
    expect(onMainKeys).not.toHaveBeenCalled();
    expect(onMainPage).not.toHaveBeenCalled();
    expect(verdicts.map((v: { key: BreakerKey }) => v.key)).toEqual(here.verdicts.map((v) => v.key));
    expect(keys).toHaveLength(6);
  });

  it('follow the main thread\'s later writes in the worker\'s kept analyses (a key turning bad is seen by the next question)', async () => {
    const { t, get } = await appWithKeys(6);
    const verdictOf = async (model: string) => (await get('/api/verdicts')).json().verdicts.find((v: { key: BreakerKey }) => v.key.model === model)?.verdict;
    const before = await verdictOf('m-002');
    // The same key, failing with auth errors in a newer window: only this key is dirty for the worker.
    const failing = windowEvent({ key: keyN(2), calls: 200, ok: 20, slow: 0, errors: { auth: 180 }, latency_ms: { bounds: [100, 500, 1000], counts: [100, 60, 30, 10] }, ttft_ms: undefined }, 1_000);
    const res = await t.app.inject({
      method: 'POST', url: '/v1/telemetry',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
      payload: JSON.stringify(batch([failing])),
    });
    expect(res.statusCode, res.body).toBe(200);
    const range = t.app.resolveWindow({ window: '15m' }, '15m');
    const here = (await t.app.verdicts.verdicts(range)).find((v) => v.key.model === 'm-002')!.verdict;
    expect(here).not.toBe(before);
    expect(await verdictOf('m-002')).toBe(here);
    expect(t.app.verdicts.cacheStats()).not.toBeNull();
  });
});

describe('API answers', () => {
  it('carry Cache-Control: no-store and X-Content-Type-Options: nosniff, errors and ingest acks too', async () => {
    const { t, get } = await appWithKeys(1);
    for (const res of [await get('/api/keys'), await get('/api/verdicts'), await t.app.inject({ url: '/api/keys' }), await t.app.inject({ url: '/readyz' })]) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('logs', () => {
  it('never carry a token sent as ?token=', async () => {
    const { app, logs, close } = await appWithLogs('info');
    cleanups.push(close);
    const secret = 'bbx_query-string-secret-0123456789';
    await app.inject({ url: `/api/keys?window=15m&token=${secret}` });
    await app.inject({ method: 'POST', url: `/v1/telemetry?access_token=${secret}`, headers: { 'content-type': 'application/json' }, payload: '{}' });
    const text = logs();
    expect(text).toContain('/api/keys?window=15m&token=[redacted]');
    expect(text).not.toContain(secret);
  });
});

import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, batch, makeApp, oneOfEach, rowCounts, testConfig, windowEvent } from './helpers.ts';
import { sqlOf } from '../support/sql.ts';

type TestApp = Awaited<ReturnType<typeof makeApp>>;

let t: TestApp;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

const post = (body: unknown, headers: Record<string, string> = {}, token: string | null = t.tokens.ingest) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });

const nothingStored = () => {
  for (const [table, n] of Object.entries(rowCounts(t.app))) expect({ table, n }).toEqual({ table, n: 0 });
};

describe('POST /v1/telemetry', () => {
  it('accepts one event of each type and stores each in its table', async () => {
    const res = await post(batch(oneOfEach()));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ accepted: 5, duplicate: false });
    const counts = rowCounts(t.app);
    expect(counts).toMatchObject({ batches: 1, keys: 1, window_events: 1, transition_events: 1, task_events: 1, config_events: 1, probe_events: 1 });
    const w = sqlOf(t.app).prepare('SELECT * FROM window_events').get() as Record<string, unknown>;
    expect(w).toMatchObject({ calls: 120, ok: 100, slow: 5, rejected: 2, retries: 8, cost_usd: 0.42 });
    expect(JSON.parse(w.errors as string)).toEqual({ server: 12, rate_limit: 3 });
    // Histograms are stored as the JSON of what was sent.
    expect(w.latency).toBe(JSON.stringify({ bounds: [100, 500, 1000], counts: [40, 60, 15, 5] }));
    expect(w.ttft).toBe(JSON.stringify({ bounds: [100, 500], counts: [70, 40, 10] }));
    const p = sqlOf(t.app).prepare('SELECT * FROM probe_events').get() as Record<string, unknown>;
    expect(p).toMatchObject({ location: 'eu-west', outcome: 'error', error_class: 'server', status: 503, total_ms: 81, cold: 0 });
  });

  it('lists the keys that reported through GET /api/keys with their model ids exactly', async () => {
    const odd = { provider: 'openai-compatible', endpoint: 'chat', model: 'org/model:v2@2024-08-01', region: 'eu-west' };
    const noRegion = { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-small' };
    await post(batch([windowEvent({ key: odd }), windowEvent({ key: noRegion }), windowEvent()]));
    const res = await t.app.inject({ url: '/api/keys', headers: { authorization: `Bearer ${t.tokens.read}` } });
    expect(res.statusCode).toBe(200);
    const keys = res.json().keys.map((k: { key: unknown }) => k.key);
    expect(keys).toContainEqual(odd);
    expect(keys).toContainEqual(noRegion);
    expect(keys).toContainEqual(KEY);
    expect(res.json().keys[0].last_seen).toBeGreaterThan(Date.now() - 60_000);
  });

  it('accepts a gzip-encoded body', async () => {
    const res = await post(gzipSync(JSON.stringify(batch(oneOfEach()))), { 'content-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.json().accepted).toBe(5);
  });

  it('acknowledges a repeated batch_id as a duplicate and stores nothing twice', async () => {
    const b = batch(oneOfEach());
    expect((await post(b)).json()).toEqual({ accepted: 5, duplicate: false });
    const before = rowCounts(t.app);
    const again = await post(b);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ accepted: 0, duplicate: true });
    expect(rowCounts(t.app)).toEqual(before);
  });

  it('accepts passthrough counts with no events, and lists them beside the keys of GET /api/keys', async () => {
    const pt = [{ host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'POST', count: 7, why: 'unknown endpoint' }];
    const res = await post({ ...batch([]), passthrough: pt });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ accepted: 0, duplicate: false });
    const keys = await t.app.inject({ url: '/api/keys?window=1h', headers: { authorization: `Bearer ${t.tokens.read}` } });
    expect(keys.statusCode).toBe(200);
    expect(keys.json().keys).toEqual([]);
    expect(keys.json().passthrough).toEqual([{
      service: 'ticket-drafts', host: pt[0]!.host, path_family: pt[0]!.path_family, method: 'POST', requests: 7, why: 'unknown endpoint',
      last_seen: expect.any(Number),
    }]);
  });

  it.each([
    ['neither events nor passthrough', {}, '/events'],
    ['an empty passthrough list', { passthrough: [] }, '/passthrough'],
    ['a passthrough count of 0', { passthrough: [{ host: 'h', path_family: '/', method: 'GET', count: 0 }] }, '/passthrough/0/count'],
    ['a path family over 200 characters', { passthrough: [{ host: 'h', path_family: `/${'a'.repeat(200)}`, method: 'GET', count: 1 }] }, '/passthrough/0/path_family'],
    ['over 100 passthrough entries', { passthrough: Array.from({ length: 101 }, (_, i) => ({ host: `h${i}`, path_family: '/', method: 'GET', count: 1 })) }, '/passthrough'],
  ])('refuses a batch with %s → 400 naming the field', async (_name, extra, path) => {
    const res = await post({ ...batch([]), ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_INVALID', path });
    nothingStored();
  });

  describe('refuses bad input with its status, naming the field, and stores nothing', () => {
    it('malformed JSON → 400', async () => {
      const res = await post('{"batch_id": "x", "events": [');
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('BB_ERR_INGEST_MALFORMED_JSON');
      nothingStored();
    });

    it('a wrong type → 400 with the path of the field', async () => {
      const events = [windowEvent(), windowEvent({ calls: '12' as unknown as number })];
      const res = await post(batch(events));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_INVALID', path: '/events/1/calls' });
      nothingStored();
    });

    it('a negative count → 400', async () => {
      const res = await post(batch([windowEvent({ rejected: -1 })]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/0/rejected');
      nothingStored();
    });

    it('a missing field → 400', async () => {
      const { ok: _ok, ...withoutOk } = windowEvent();
      const res = await post(batch([withoutOk as never]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/0/ok');
      nothingStored();
    });

    it('a missing batch_id → 400', async () => {
      const { batch_id: _id, ...rest } = batch(oneOfEach());
      const res = await post(rest);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/batch_id');
      nothingStored();
    });

    it('an unknown event type → 400', async () => {
      const res = await post(batch([windowEvent(), { type: 'heartbeat', ts: Date.now() } as never]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/1/type');
      expect(res.json().error.message).toContain('heartbeat');
      nothingStored();
    });

    it('mismatched histogram lengths → 400', async () => {
      const res = await post(batch([windowEvent({ latency_ms: { bounds: [100, 500], counts: [1, 2] } })]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/0/latency_ms/counts');
      nothingStored();
    });

    it('a timestamp more than 5 minutes in the future → 400', async () => {
      const res = await post(batch([{ ...oneOfEach()[4]!, ts: Date.now() + 10 * 60_000 } as never]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/0/ts');
      nothingStored();
    });

    it('a timestamp older than the raw retention → 400', async () => {
      const res = await post(batch([windowEvent({}, 8 * 86_400_000)]));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/events/0/start');
      nothingStored();
    });

    it('an oversize body → 413', async () => {
      const events = Array.from({ length: 3000 }, () => windowEvent({ operation: 'x'.repeat(200) } as never));
      const res = await post(batch(events));
      expect(res.statusCode).toBe(413);
      expect(res.json().error.code).toBe('BB_ERR_INGEST_TOO_LARGE');
      nothingStored();
    });

    it('a gzip bomb → 413 without inflating it all', async () => {
      // 64 MiB of spaces compresses to ~64 KiB: far under the limit on the wire, far over it inflated.
      const bomb = gzipSync(Buffer.concat([Buffer.from('{"batch_id":"bomb","pad":"'), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from('"}')]));
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const res = await post(bomb, { 'content-encoding': 'gzip' });
      expect(res.statusCode).toBe(413);
      nothingStored();
    });

    it('a non-JSON content type → 415', async () => {
      const res = await post('batch_id=1', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('BB_ERR_INGEST_UNSUPPORTED_TYPE');
      nothingStored();
    });

    it('an unsupported content encoding → 415', async () => {
      const res = await post(JSON.stringify(batch(oneOfEach())), { 'content-encoding': 'br' });
      expect(res.statusCode).toBe(415);
      nothingStored();
    });

    it('no token → 401', async () => {
      const res = await post(batch(oneOfEach()), {}, null);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('BB_ERR_AUTH_MISSING');
      nothingStored();
    });

    it('an unknown token → 401', async () => {
      const res = await post(batch(oneOfEach()), {}, 'bbx_not-a-real-token');
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('BB_ERR_AUTH_INVALID');
      nothingStored();
    });

    it('a read-only token → 403', async () => {
      const res = await post(batch(oneOfEach()), {}, t.tokens.read);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('BB_ERR_AUTH_FORBIDDEN');
      nothingStored();
    });

    it('a revoked token → 401', async () => {
      const { secret } = await t.app.storage.tokens.create('short-lived', ['ingest']);
      await t.app.storage.tokens.revoke('short-lived');
      expect((await post(batch(oneOfEach()), {}, secret)).statusCode).toBe(401);
      nothingStored();
    });
  });

  it('answers 429 with Retry-After once a token exceeds its rate', async () => {
    const limited = await makeApp({ ingest: { ...testConfig(':memory:').ingest, rate_limit: { per_second: 1, burst: 2 } } });
    try {
      const send = () =>
        limited.app.inject({
          method: 'POST', url: '/v1/telemetry',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${limited.tokens.ingest}` },
          payload: JSON.stringify(batch([windowEvent()])),
        });
      expect((await send()).statusCode).toBe(200);
      expect((await send()).statusCode).toBe(200);
      const refused = await send();
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.json().error.code).toBe('BB_ERR_INGEST_RATE_LIMITED');
      expect(rowCounts(limited.app).batches).toBe(2);
    } finally {
      await limited.close();
    }
  });
});

describe('health', () => {
  it('answers /healthz and /readyz without a token', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});

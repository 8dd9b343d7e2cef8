import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import { SseReader, fleetKeyTag, type BreakerKey, type FleetDecision } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { createFeedHub } from '../../server/fleet/feed-hub.ts';
import { manualClock } from '../../server/clock.ts';

const DOWN: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const OTHER: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };

let c: TestCollector;
const clock = manualClock(Date.now());
let base: string;

/** One feed over real HTTP: the decisions received so far, and a wait for the next ones. */
async function subscribe(keys: BreakerKey[] | null, token = c.token) {
  const ac = new AbortController();
  const q = keys ? `?keys=${keys.map(fleetKeyTag).join(',')}` : '';
  const res = await fetch(`${base}/v1/fleet${q}`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
  const got: FleetDecision[] = [];
  let ready = false;
  if (res.ok) {
    const reader = new SseReader();
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          for (const e of reader.push(chunk)) {
            if (e.event === 'decision') got.push(JSON.parse(e.data));
            if (e.event === 'ready') ready = true;
          }
        }
      } catch { /* aborted */ }
    })();
  }
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(ok()).toBe(true);
  };
  return { res, got, isReady: () => ready, until, close: () => ac.abort() };
}

beforeAll(async () => {
  // A clock that moves only when told: the TTL the feed sends is exact, whatever the machine's speed.
  c = await collector({ clock });
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = c.app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
});
afterAll(async () => {
  await c.close();
});

describe('GET /v1/fleet', () => {
  it('refuses a feed without a valid ingest token (401) and a read-only token (403)', async () => {
    expect((await subscribe(null, 'not-a-token')).res.status).toBe(401);
    const read = (await c.app.storage.tokens.create('reader', ['read'])).secret;
    expect((await subscribe(null, read)).res.status).toBe(403);
  });

  it('pushes a probe-confirmed outage to the feeds of that key only, with a TTL, and renews it while the verdict holds', async () => {
    const mine = await subscribe([DOWN]);
    const others = await subscribe([OTHER]);
    await mine.until(mine.isReady);
    await others.until(others.isReady);
    const from = c.now - 15 * MIN;
    await c.send({ service: 'drafts', instance: 'pod-1' }, [
      transition(DOWN, from - MIN, null, 'closed', 'created'),
      ...windows(DOWN, from, c.now, { calls: 40, errors: { server: 30 } }),
      ...windows(OTHER, from, c.now, { calls: 40 }),
    ]);
    const now = c.app.clock.now();
    await c.send({ service: 'prober', instance: 'eu' }, probes(DOWN, 'eu-west', from, now, 'error', { error_class: 'server', status: 503 }));
    await c.send({ service: 'prober', instance: 'us' }, probes(DOWN, 'us-east', from, now, 'error', { error_class: 'server', status: 503 }));
    await c.app.alerts.evaluate(now);
    await mine.until(() => mine.got.length === 1);
    expect(mine.got[0]).toMatchObject({ kind: 'outage', key: DOWN, ttl_ms: 60_000 });
    expect(others.got).toEqual([]);

    // The next evaluation renews the stored decision; the feed sends the same id again.
    await c.app.alerts.evaluate(now + 20_000);
    await mine.until(() => mine.got.length === 2);
    expect(mine.got[1]!.id).toBe(mine.got[0]!.id);

    // A new subscriber gets the decision in force in its snapshot, before `ready`.
    const late = await subscribe([DOWN]);
    await late.until(late.isReady);
    expect(late.got.map((d) => d.id)).toEqual([mine.got[0]!.id]);
    for (const s of [mine, others, late]) s.close();
  });

  it('drains and releases a key from the admin API, audited, and lists decisions with applied instances', async () => {
    const feed = await subscribe([OTHER]);
    await feed.until(feed.isReady);
    const auth = { authorization: `Bearer ${c.token}` };
    const bad = await c.app.inject({ method: 'POST', url: '/api/fleet/drain', headers: auth, payload: { key: OTHER, reason: 'x' } });
    expect(bad.statusCode).toBe(400);
    const drained = await c.app.inject({ method: 'POST', url: '/api/fleet/drain', headers: auth, payload: { key: OTHER, reason: 'bad answers since 14:02', expires_in_s: 3600 } });
    expect(drained.statusCode).toBe(201);
    expect(drained.json().decision).toMatchObject({ kind: 'drain', origin: 'operator', created_by: 't', reason: 'bad answers since 14:02', active: true });
    await feed.until(() => feed.got.length === 1);
    // The feed never hands an instance more than one TTL, however long the drain.
    expect(feed.got[0]).toMatchObject({ kind: 'drain', key: OTHER, ttl_ms: 60_000 });

    clock.advance(1000);
    await c.send({ service: 'drafts', instance: 'pod-1' }, [transition(OTHER, c.app.clock.now(), 'closed', 'forced_open', 'fleet_drain')]);
    clock.advance(1000);
    const released = await c.app.inject({ method: 'POST', url: '/api/fleet/release', headers: auth, payload: { key: OTHER, reason: 'fixed' } });
    expect(released.statusCode).toBe(201);
    await feed.until(() => feed.got.length === 2);
    expect(feed.got[1]).toMatchObject({ kind: 'release', ttl_ms: 0 });
    const again = await c.app.inject({ method: 'POST', url: '/api/fleet/release', headers: auth, payload: { key: OTHER, reason: 'fixed' } });
    expect(again.statusCode).toBe(404);

    const list = await c.get(`/api/fleet?${keyQuery(OTHER)}`);
    expect(list.decisions.map((d: any) => [d.kind, d.active, d.ended_by])).toEqual([['release', true, null], ['drain', false, 't']]);
    expect(list.decisions[1].applied_instances).toBe(1);
    feed.close();
  });

  it('refuses a drain by a token without the admin right', async () => {
    const ingest = (await c.app.storage.tokens.create('pods', ['ingest'])).secret;
    const res = await c.app.inject({ method: 'POST', url: '/api/fleet/drain', headers: { authorization: `Bearer ${ingest}` }, payload: { key: OTHER, reason: 'x', expires_in_s: 60 } });
    expect(res.statusCode).toBe(403);
  });
});

describe('feed memory per subscriber', () => {
  it('closes a feed whose unsent bytes pass the cap instead of buffering without bound', () => {
    let sent = 0;
    const hub = createFeedHub(4096, { sent: (_k, n) => (sent += n) });
    // A socket nobody reads: writes pile up in its buffer.
    const stuck = new PassThrough({ highWaterMark: 1 });
    const reading = new Writable({ write: (_chunk, _enc, done) => done() });
    hub.add({ out: stuck, tags: null, service: null });
    hub.add({ out: reading, tags: null, service: null });
    const d = { wire: { id: 'x', kind: 'outage' as const, key: OTHER, ttl_ms: 60_000, reason: 'r'.repeat(500), issued_at: 1 }, tag: fleetKeyTag(OTHER) };
    for (let i = 0; i < 50; i++) hub.broadcast([d]);
    expect(stuck.destroyed).toBe(true);
    expect(stuck.writableLength).toBeLessThanOrEqual(4096);
    expect(hub.size).toBe(1);
    expect(sent).toBeGreaterThan(50);
  });
});

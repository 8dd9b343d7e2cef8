/**
 * `GET /v1/probe-requests` on a real server (port 0): a prober already waiting gets the
 * probe asked of its location within its poll, a location that does not cover the key gets
 * nothing, the wait is bounded by `suspicion.long_poll_s`, and only a token with the ingest
 * right may poll. The collector runs on a manual clock: the burst's later requests fall due
 * as the test moves it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { manualClock, type ManualServerClock } from '../../server/clock.ts';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const START = Date.parse('2025-06-01T00:00:00Z');
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' };
const OTHER: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' };

let c: TestCollector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

/** A listening collector with 15 healthy minutes: eu-west probes KEY, ap-south only OTHER. */
async function serve(config: Record<string, unknown> = {}): Promise<{ url: string; clock: ManualServerClock; ingest: string; read: string }> {
  const clock = manualClock(START);
  c = await collector({ clock, config });
  const from = START - 15 * MIN;
  await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [transition(KEY, from - MIN, null, 'closed', 'created'), ...windows(KEY, from, START, { calls: 10 })]);
  await c.send({ service: 'probe', instance: 'eu-west' }, probes(KEY, 'eu-west', from, START, 'ok'));
  await c.send({ service: 'probe', instance: 'ap-south' }, probes(OTHER, 'ap-south', from, START, 'ok'));
  const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  return { url, clock, ingest: (await c.app.storage.tokens.create('prober', ['ingest'])).secret, read: (await c.app.storage.tokens.create('board', ['read'])).secret };
}

const poll = async (url: string, token: string | null, query: string) => {
  const res = await fetch(`${url}/v1/probe-requests?${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

/** The key's breaker opens (and stays open past min_open_s); one trigger pass. */
async function degrade(at: number) {
  await c!.send({ service: 'ticket-drafts', instance: 'pod-1' }, [transition(KEY, at - 30_000, 'closed', 'open')]);
  return c!.app.suspicion.evaluate(at);
}

describe('GET /v1/probe-requests', () => {
  it('hands a request to a prober already waiting, within its poll, and only to the locations covering the key', async () => {
    const { url, clock, ingest } = await serve();
    let settled = false;
    const waiting = poll(url, ingest, 'location=eu-west&wait_s=20').finally(() => (settled = true));
    const elsewhere = poll(url, ingest, 'location=ap-south&wait_s=1');
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false); // nothing asked yet: the poll waits

    expect((await degrade(START)).opened.map((s) => s.locations)).toEqual([['eu-west']]);
    const got = await waiting;
    expect(got.status).toBe(200);
    expect(got.body.requests.map((r: any) => [r.key, r.requested_at])).toEqual([[KEY, START]]);
    expect(got.body.retry_after_ms).toBe(0);
    expect((await elsewhere).body.requests).toEqual([]);

    // The burst's second and third requests fall due 0.5 s and 1 s later, on the collector's clock.
    clock.advance(500);
    expect((await poll(url, ingest, 'location=eu-west&wait_s=5')).body.requests).toHaveLength(1);
    clock.advance(500);
    expect((await poll(url, ingest, 'location=eu-west&wait_s=5')).body.requests).toHaveLength(1);
    const { locations } = await c!.get('/api/probes');
    expect(locations.find((l: any) => l.location === 'eu-west').on_demand).toMatchObject({ requested: 3, delivered: 3, pending: 0 });
  });

  it('bounds the wait: an empty answer after wait_s, never later than suspicion.long_poll_s; a prober not waiting is told when to come back', async () => {
    const { url, ingest } = await serve({ suspicion: { long_poll_s: 1 } });
    expect(await poll(url, ingest, 'location=eu-west&wait_s=120')).toEqual({ status: 200, body: { requests: [], retry_after_ms: 0 } });
    expect(await poll(url, ingest, 'location=eu-west&wait_s=0')).toEqual({ status: 200, body: { requests: [], retry_after_ms: 1_000 } });
  });

  it("takes the prober's ingest token: none, or one without the ingest right, is refused; a bad location is a 400", async () => {
    const { url, ingest, read } = await serve();
    await degrade(START);
    const none = await poll(url, null, 'location=eu-west&wait_s=0');
    expect([none.status, none.body.error.code]).toEqual([401, 'BB_ERR_AUTH_MISSING']);
    const board = await poll(url, read, 'location=eu-west&wait_s=0');
    expect([board.status, board.body.error.code]).toEqual([403, 'BB_ERR_AUTH_FORBIDDEN']);
    const bad = await poll(url, ingest, 'location=eu%20west&wait_s=0');
    expect([bad.status, bad.body.error.code, bad.body.error.path]).toEqual([400, 'BB_ERR_QUERY_INVALID', '/querystring/location']);
    // The refused polls took nothing: the request is still there for the prober.
    expect((await poll(url, ingest, 'location=eu-west&wait_s=0')).body.requests).toHaveLength(1);
  });

  it('hands nothing out when probe on suspicion is off', async () => {
    const { url, ingest } = await serve({ suspicion: { enabled: false, long_poll_s: 1 } });
    expect((await degrade(START)).opened).toEqual([]);
    expect((await poll(url, ingest, 'location=eu-west&wait_s=1')).body.requests).toEqual([]);
  });
});

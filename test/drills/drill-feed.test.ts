/**
 * Drills over real HTTP: the command goes only to feeds that named its service (a raw SSE
 * reader on /v1/fleet), a stop follows it, and `breakerbox drill run` against a real
 * collector on port 0 waits for the report and exits 0 when every drill passed, 1 otherwise
 * — with drill telemetry answered by a hand-built responder playing the SDK instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillCommand } from '@breakerbox/protocol';
import { collector, type TestCollector } from '../verdicts/support.ts';
import { drillCommand, parseDrills } from '../../server/drills/drill-cli.ts';
import { CORRECT, MISCONFIGURED, drillFeed, sendDrill, stepEvents, type StepBehaviour } from './support.ts';

let c: TestCollector;
let base: string;

/** One feed over real HTTP, once its snapshot is sent. */
async function subscribe(service: string | null, onDrill?: (d: DrillCommand) => void) {
  const feed = await drillFeed(base, c.token, service, onDrill);
  await expect.poll(feed.isReady).toBe(true);
  return feed;
}

/** Plays an SDK instance with drills enabled: on each command, sends `behaviour`'s telemetry for each of its steps. */
function responder(behaviour: Record<string, StepBehaviour>) {
  const pending: Promise<unknown>[] = [];
  return {
    onDrill(d: DrillCommand) {
      if (d.step_ms === 0) return;
      const events = d.kinds.flatMap((k, i) => stepEvents(d.issued_at + i * d.step_ms, d.step_ms, behaviour[k]!));
      pending.push(sendDrill(c, d.id, events).then((r) => expect(r.statusCode, r.body).toBe(200)));
    },
    settled: () => Promise.all(pending),
  };
}

beforeAll(async () => {
  c = await collector({ config: { drills: { grace_s: 1, check_interval_ms: 100 }, fleet: { poll_interval_ms: 100 } } });
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(c.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await c.close();
});

const post = async (url: string, payload?: object) =>
  c.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${c.token}` }, ...(payload ? { payload } : {}) });

describe('drill commands on the fleet feed', () => {
  it('sends a drill only to the feeds that named its service, and a stop after it', async () => {
    const drafts = await subscribe('drafts');
    const other = await subscribe('billing');
    const unnamed = await subscribe(null);
    const started = await post('/api/drills', { service: 'drafts', kinds: ['auth_revoked', 'rate_limit'], step_s: 600 });
    expect(started.statusCode).toBe(201);
    const run = started.json().run;
    expect(started.json().sent_to).toBe(1);
    await expect.poll(() => drafts.drills.length).toBe(1);
    // Kinds run in the protocol's order whatever order they were asked in.
    expect(drafts.drills[0]).toEqual({ id: run.id, service: 'drafts', kinds: ['rate_limit', 'auth_revoked'], step_ms: 600_000, issued_at: run.issued_at });

    // A run for billing reaches billing's feed: by then the drafts run has long been written, and it went nowhere else.
    expect((await post('/api/drills', { service: 'billing', kinds: ['truncated'], step_s: 600 })).statusCode).toBe(201);
    await expect.poll(() => other.drills.length).toBe(1);
    expect(other.drills[0]!.service).toBe('billing');
    expect(unnamed.drills).toEqual([]);

    // One run per service at a time.
    const again = await post('/api/drills', { service: 'drafts', step_s: 60 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('BB_ERR_DRILL_RUNNING');

    const stopped = await post(`/api/drills/${run.id}/stop`);
    expect(stopped.statusCode).toBe(200);
    await expect.poll(() => drafts.drills.length).toBe(2);
    expect(drafts.drills[1]).toMatchObject({ id: run.id, step_ms: 0 });
    expect((await post(`/api/drills/${run.id}/stop`)).statusCode).toBe(409);
    expect(other.drills).toHaveLength(1);
    for (const f of [drafts, other, unnamed]) f.close();
  });

  it('needs the admin right to start a drill', async () => {
    const ingest = (await c.app.storage.tokens.create('sdk', ['ingest'])).secret;
    const res = await c.app.inject({ method: 'POST', url: '/api/drills', headers: { authorization: `Bearer ${ingest}` }, payload: { service: 'drafts' } });
    expect(res.statusCode).toBe(403);
  });

  it('refuses a drill batch naming an unknown run, with the field, and stores nothing', async () => {
    const res = await sendDrill(c, 'no-such-run', stepEvents(Date.now() - 10_000, 10_000, CORRECT.rate_limit));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_INVALID', path: '/drill_id' });
  });
});

describe('breakerbox drill run', () => {
  const io = () => {
    const lines: string[] = [];
    return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) } };
  };
  it('reads the short drill names a pipeline types, and refuses an unknown one by name', () => {
    expect(parseDrills('429,ttft,down,length,rename,auth')).toEqual(['rate_limit', 'slow_first_byte', 'primary_down', 'truncated', 'field_renamed', 'auth_revoked']);
    expect(parseDrills('primary_down')).toEqual(['primary_down']);
    expect(() => parseDrills('429,latency')).toThrow(/unknown drill "latency"/);
  });

  const args = ['run', '--url', '', '--service', 'drafts', '--drills', '429,down', '--step-s', '1', '--poll-ms', '100'];

  it('exits 0 with the report when every drill passed, and 1 with the reasons when one failed', async () => {
    args[2] = base;
    const good = responder(CORRECT);
    const feed = await subscribe('drafts', (d) => good.onDrill(d));
    const ok = io();
    expect(await drillCommand(args, { BREAKERBOX_TOKEN: c.token }, ok.io), ok.lines.join('\n')).toBe(0);
    await good.settled();
    const text = ok.lines.join('\n');
    expect(text).toMatch(/^outcome: PASS/m);
    expect(text).toMatch(/PASS\s+rate_limit/);
    feed.close();

    const bad = responder(MISCONFIGURED);
    const feed2 = await subscribe('drafts', (d) => bad.onDrill(d));
    const failed = io();
    expect(await drillCommand(args, { BREAKERBOX_TOKEN: c.token }, failed.io), failed.lines.join('\n')).toBe(1);
    await bad.settled();
    const report = failed.lines.join('\n');
    expect(report).toMatch(/^outcome: FAIL/m);
    expect(report).toMatch(/NO {2}attempts per call \(retries within budget\): 4 \(at most 3\)/);
    expect(report).toMatch(/REGRESSION rate_limit: pass -> fail/);
    expect(report).toMatch(/REGRESSION primary_down: pass -> fail/);
    feed2.close();
    console.log(`\n${report}\n`);
    // Two drill runs on real clocks: generous for a loaded machine, never a measured duration.
  }, 120_000);
});

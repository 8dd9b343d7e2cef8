/**
 * The SDK's fleet subscription and its safety rules (docs/fleet.md), on a hand-driven clock
 * against a real local HTTP "collector" whose behaviour each test chooses: decisions are
 * applied only to keys in use and with a fallback, bounded by their TTL; a collector that is
 * down, slow, silent, lying or refusing the token changes nothing locally.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetKeyTag, formatSseEvent, type BreakerKey, type FleetDecision, type TelemetryBatch } from '@breakerbox/protocol';
import { createBreakerbox, type Breakerbox, type BreakerTransition, type FleetOptions } from '../../sdk/index.ts';
import { ManualClock } from '../support/manual-clock.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PRIMARY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const FALLBACK: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const LONELY: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4-5' };
const UNUSED: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1' };

const decision = (o: Partial<FleetDecision> = {}): FleetDecision => ({ id: 'd1', kind: 'outage', key: PRIMARY, ttl_ms: 60_000, reason: 'provider_outage', issued_at: 1, ...o });
const sse = (d: unknown) => formatSseEvent({ event: 'decision', data: typeof d === 'string' ? d : JSON.stringify(d) });

interface FakeCollector {
  url: string;
  /** GET /v1/fleet requests seen (their URLs). */
  feeds: string[];
  /** Telemetry batches received. */
  batches: TelemetryBatch[];
  /** Open feed responses, to push more events. */
  open: ServerResponse[];
}

const servers: Server[] = [];
const instances: Breakerbox[] = [];
afterEach(async () => {
  for (const bb of instances.splice(0)) await bb.close(50);
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A collector whose feed answers with `onFeed` (the nth connection is `n`, from 0). */
async function fakeCollector(onFeed: (res: ServerResponse, n: number, req: IncomingMessage) => void): Promise<FakeCollector> {
  const c: FakeCollector = { url: '', feeds: [], batches: [], open: [] };
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/fleet')) {
      c.feeds.push(req.url);
      onFeed(res, c.feeds.length - 1, req);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      try {
        c.batches.push(JSON.parse(Buffer.concat(chunks).toString()));
      } catch { /* not ours */ }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":1,"duplicate":false}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return c;
}

/** Answers a feed with these events and keeps it open. */
const feedWith = (c: () => FakeCollector, ...events: string[]) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(e);
  res.write('event: ready\ndata: {}\n\n');
  c().open.push(res);
};

/** An instance using PRIMARY (with FALLBACK behind it) and LONELY (no fallback), on a manual clock. */
async function instance(url: string, fleet: FleetOptions | false = {}) {
  const clock = new ManualClock(Date.now());
  // The options accept exactly the Clock interface, so the test clock is handed over through it.
  const asClock = { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms), clearTimeout: (h: unknown) => clock.clearTimeout(h) };
  const bb = createBreakerbox({ clock: asClock, random: () => 0.5, telemetry: { url, service: 'drafts', instance: 'pod-1', token: 'tok', gzip: false }, fleet });
  instances.push(bb);
  const transitions: BreakerTransition[] = [];
  bb.onStateChange((t) => transitions.push(t));
  bb.declareFallbacks({ key: PRIMARY }, [{ key: FALLBACK }]);
  bb.policy(FALLBACK);
  bb.policy(LONELY);
  // The subscription starts on a background timer of the SDK's clock.
  await clock.advance(0);
  return { bb, clock, transitions, state: (k: BreakerKey) => bb.policy(k).breaker.state.name };
}

/** Waits (real time: HTTP is real) until `ok` holds. */
async function until(ok: () => boolean): Promise<void> {
  await expect.poll(ok, { timeout: 15_000, interval: 10 }).toBe(true);
}

describe('fleet feed: applying decisions', () => {
  it('subscribes once with the key tags it uses and opens a key with a fallback on a fleet outage, reported as fleet_outage with its TTL', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const { bb, transitions, state } = await instance(c.url);
    await until(() => bb.fleetStats()!.applied === 1);
    expect(c.feeds).toHaveLength(1);
    expect(new URL(c.feeds[0]!, c.url).searchParams.get('keys')?.split(',').sort()).toEqual([PRIMARY, FALLBACK, LONELY].map(fleetKeyTag).sort());
    expect(state(PRIMARY)).toBe('forced_open');
    expect(transitions.at(-1)).toMatchObject({ key: PRIMARY, from: 'closed', to: 'forced_open', reason: 'fleet_outage', cooldownMs: 60_000 });
    // A call goes straight to the fallback level without touching the primary.
    const op = bb.operation({ name: 'draft', levels: [{ key: PRIMARY, run: async () => 'primary' }, { key: FALLBACK, run: async () => 'fallback' }] });
    expect((await op.run(undefined)).value).toBe('fallback');
    // The collector hears about it like any transition, and counts it.
    await bb.flush(2_000);
    const events = c.batches.flatMap((b) => b.events);
    expect(events).toContainEqual(expect.objectContaining({ type: 'transition', reason: 'fleet_outage', to: 'forced_open', cooldown_ms: 60_000 }));
    expect(c.batches.some((b) => b.fleet?.applied === 1)).toBe(true);
  });

  it('lets a fleet outage lapse at its TTL without renewal: the breaker goes half-open by itself', async () => {
    let c!: FakeCollector;
    // Only the first connection carries the decision; nobody renews it.
    c = await fakeCollector((res, n) => feedWith(() => c, ...(n === 0 ? [sse(decision())] : []))(res));
    const { bb, clock, state } = await instance(c.url);
    await until(() => bb.fleetStats()!.applied === 1);
    await clock.advance(59_000);
    expect(state(PRIMARY)).toBe('forced_open');
    await clock.advance(1_000);
    expect(state(PRIMARY)).toBe('half_open');
  });

  it('keeps the breaker open past the first TTL while renewals arrive, never longer than the last one', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const { bb, clock, state } = await instance(c.url);
    await until(() => bb.fleetStats()!.applied === 1);
    await clock.advance(40_000);
    c.open[0]!.write(sse(decision()));
    await until(() => bb.fleetStats()!.renewed === 1);
    await clock.advance(40_000);
    expect(state(PRIMARY)).toBe('forced_open');
    await clock.advance(20_000);
    expect(state(PRIMARY)).toBe('half_open');
  });

  it('sends calls to the fallback for the cooldown cap, then tries the primary once per cap under the hold; once the TTL lapses unrenewed its own trials close a recovered key; late renewals of that outage are then overruled', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const { bb, clock, state, transitions } = await instance(c.url);
    await until(() => bb.fleetStats()!.applied === 1);
    let down = true;
    let primaryCalls = 0;
    const op = bb.operation({ name: 'draft', levels: [{ key: PRIMARY, run: async () => { primaryCalls++; if (down) throw Object.assign(new Error('overloaded'), { status: 503 }); return 'primary'; } }, { key: FALLBACK, run: async () => 'fallback' }] });
    expect((await op.run(undefined)).value).toBe('fallback');
    // Past its first own cooldowns, short of the cap (20 s, jittered below it only: 18 s here): the primary is not tried.
    await clock.advance(17_000);
    expect((await op.run(undefined)).value).toBe('fallback');
    expect(primaryCalls).toBe(0);
    // The cap has passed: one trial of its own, which fails; the call still ends on the fallback and the hold stays.
    await clock.advance(1_000);
    expect((await op.run(undefined)).value).toBe('fallback');
    expect(primaryCalls).toBe(1);
    expect(state(PRIMARY)).toBe('forced_open');
    // No renewal came: the TTL lapses and the breaker's own trials find the provider back.
    down = false;
    await clock.advance(42_000);
    for (let i = 0; i < 3; i++) expect((await op.run(undefined)).value).toBe('primary');
    expect(primaryCalls).toBe(4);
    expect(state(PRIMARY)).toBe('closed');
    expect(transitions.filter((t) => t.key.model === PRIMARY.model).map((t) => `${t.to}:${t.reason}`).slice(-5)).toEqual(['forced_open:fleet_outage', 'half_open:cooldown_elapsed', 'forced_open:probe_failed', 'half_open:cooldown_elapsed', 'closed:probes_succeeded']);
    // A renewal of the same outage that was held up: the instance's own evidence is newer.
    c.open[0]!.write(sse(decision()));
    await until(() => bb.fleetStats()!.ignored.overruled === 1);
    expect(state(PRIMARY)).toBe('closed');
  });

  it('through a 10-minute outage the collector keeps renewing, is back on the primary within the cap and its clean trials of the provider\'s return, before the collector says so', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const { bb, clock, state } = await instance(c.url);
    await until(() => bb.fleetStats()!.applied === 1);
    const start = clock.now();
    const backAt = start + 10 * 60_000 + 4_500;
    const tried: number[] = [];
    const op = bb.operation({ name: 'draft', levels: [{ key: PRIMARY, run: async () => { tried.push(clock.now()); if (clock.now() < backAt) throw Object.assign(new Error('overloaded'), { status: 503 }); return 'primary'; } }, { key: FALLBACK, run: async () => 'fallback' }] });
    let firstPrimary: number | null = null;
    let renewals = 0;
    for (let s = 1; s <= 11 * 60 && firstPrimary === null; s++) {
      await clock.advance(1_000);
      if (s % 20 === 0) {
        c.open[0]!.write(sse(decision()));
        const want = ++renewals;
        await until(() => bb.fleetStats()!.renewed === want);
      }
      if ((await op.run(undefined)).value === 'primary' && state(PRIMARY) === 'closed') firstPrimary = clock.now();
    }
    const inOutage = tried.filter((t) => t < backAt);
    const gaps = [inOutage[0]! - start, ...inOutage.slice(1).map((t, i) => t - inOutage[i]!)];
    expect(inOutage.length).toBeGreaterThanOrEqual(30);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(21_000);
    expect(firstPrimary).not.toBeNull();
    expect(firstPrimary! - backAt).toBeLessThanOrEqual(20_000 + 1_000 + 3_000);
  });

  it('caps a decision at maxTtlMs whatever TTL the collector asks for', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision({ ttl_ms: 600_000 }))));
    const { bb, clock, state } = await instance(c.url, { maxTtlMs: 30_000 });
    await until(() => bb.fleetStats()!.applied === 1);
    await clock.advance(30_000);
    expect(state(PRIMARY)).toBe('half_open');
  });

  it('sends an open breaker to half-open at once on fleet_recovered, and leaves a closed one alone', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c));
    const { bb, transitions, state } = await instance(c.url);
    await until(() => c.open.length === 1);
    bb.policy(PRIMARY).breaker.fleetOpen(60_000, 'fleet_outage');
    c.open[0]!.write(sse(decision({ id: 'r1', kind: 'recovered', ttl_ms: 0 })));
    c.open[0]!.write(sse(decision({ id: 'r2', kind: 'recovered', ttl_ms: 0, key: FALLBACK })));
    await until(() => bb.fleetStats()!.applied + bb.fleetStats()!.ignored.not_open === 2);
    expect(state(PRIMARY)).toBe('half_open');
    expect(transitions.at(-1)).toMatchObject({ key: PRIMARY, to: 'half_open', reason: 'fleet_recovered' });
    expect(state(FALLBACK)).toBe('closed');
    expect(bb.fleetStats()!.ignored.not_open).toBe(1);
  });

  it('ignores a decision for a key the instance does not use, without creating it', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision({ key: UNUSED }))));
    const { bb } = await instance(c.url);
    await until(() => bb.fleetStats()!.ignored.unknown_key === 1);
    expect(bb.keys().map((k) => k.model)).not.toContain(UNUSED.model);
  });

  it('opens a key with no fallback only when the operator opted in', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision({ key: LONELY }))));
    const off = await instance(c.url);
    await until(() => off.bb.fleetStats()!.ignored.no_fallback === 1);
    expect(off.state(LONELY)).toBe('closed');
    const on = await instance(c.url, { openWithoutFallback: true });
    await until(() => on.bb.fleetStats()!.applied === 1);
    expect(on.state(LONELY)).toBe('forced_open');
  });

  it('never overrides the application forcing a breaker open itself', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c));
    const { bb, clock, state } = await instance(c.url);
    await until(() => c.open.length === 1);
    bb.policy(PRIMARY).breaker.forceOpen();
    c.open[0]!.write(sse(decision({ ttl_ms: 1_000 })));
    c.open[0]!.write(sse(decision({ id: 'rel', kind: 'release', ttl_ms: 0 })));
    await until(() => bb.fleetStats()!.ignored.manual_override === 2);
    await clock.advance(5_000);
    expect(state(PRIMARY)).toBe('forced_open');
  });

  it('reopens the feed, once per burst, when the instance starts using keys it does not cover', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c));
    const { bb, clock } = await instance(c.url);
    await until(() => bb.fleetStats()!.state === 'open');
    bb.policy(UNUSED);
    bb.policy({ ...UNUSED, model: 'gpt-4.1-mini' });
    await clock.advance(2_000);
    await until(() => c.feeds.length === 2);
    expect(new URL(c.feeds[1]!, c.url).searchParams.get('keys')?.split(',')).toContain(fleetKeyTag(UNUSED));
    await clock.advance(5_000);
    expect(c.feeds).toHaveLength(2);
  });

  it('is on with a collector when no fleet option is given: the feed opens once a key is in use', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const clock = new ManualClock(Date.now());
    const asClock = { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms), clearTimeout: (h: unknown) => clock.clearTimeout(h) };
    const bb = createBreakerbox({ clock: asClock, random: () => 0.5, telemetry: { url: c.url, service: 'drafts', instance: 'pod-1', token: 'tok', gzip: false } });
    instances.push(bb);
    bb.declareFallbacks({ key: PRIMARY }, [{ key: FALLBACK }]);
    await clock.advance(5_000);
    await until(() => bb.fleetStats()?.applied === 1);
    expect(c.feeds).toHaveLength(1);
  });

  it('turns the feed off with fleet: false', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c, sse(decision())));
    const { bb, clock } = await instance(c.url, false);
    await clock.advance(5_000);
    expect(bb.fleetStats()).toBeUndefined();
    expect(c.feeds).toEqual([]);
  });
});

describe('fleet feed: a misbehaving collector changes nothing locally', () => {
  it('lying: garbage, unknown kinds and out-of-range TTLs are counted as invalid and change no breaker', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c,
      sse('{not json'),
      sse({ ...decision(), kind: 'nuke' }),
      sse({ ...decision(), ttl_ms: 86_400_000 }),
      sse({ ...decision(), key: { provider: 'together' } }),
      'event: decision\ndata: 42\n\n',
    ));
    const { bb, state } = await instance(c.url);
    await until(() => bb.fleetStats()!.ignored.invalid === 5);
    expect(state(PRIMARY)).toBe('closed');
    expect(bb.fleetStats()!.applied).toBe(0);
  });

  it('lying: an event larger than maxEventBytes ends the connection instead of growing a buffer', async () => {
    let c!: FakeCollector;
    c = await fakeCollector((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: decision\ndata: ${'x'.repeat(64 * 1024)}`);
      c.open.push(res);
    });
    const { bb, state } = await instance(c.url, { maxEventBytes: 4_096 });
    await until(() => bb.fleetStats()!.failures === 1);
    expect(bb.fleetStats()!.lastError).toContain('maxEventBytes');
    expect(state(PRIMARY)).toBe('closed');
  });

  it('token revoked: a 401 changes nothing and is retried only after the longest backoff', async () => {
    const c = await fakeCollector((res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"BB_ERR_AUTH_INVALID","message":"x"}}'));
    const { bb, clock, state } = await instance(c.url, { maxReconnectMs: 60_000 });
    await until(() => bb.fleetStats()!.failures === 1);
    expect(bb.fleetStats()).toMatchObject({ state: 'backoff', lastError: 'the collector answered 401' });
    await clock.advance(29_000);
    expect(c.feeds).toHaveLength(1);
    await clock.advance(31_000);
    await until(() => c.feeds.length === 2);
    expect(state(PRIMARY)).toBe('closed');
  });

  it('down: a refused connection is retried with backoff, and calls run as before', async () => {
    // A port nobody listens on.
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const { bb, clock, state } = await instance(`http://127.0.0.1:${port}`);
    await until(() => bb.fleetStats()!.failures === 1);
    expect(bb.fleetStats()!.lastError).toMatch(/unreachable/);
    expect(await bb.execute(PRIMARY, async () => 'answer')).toBe('answer');
    await clock.advance(2_000);
    await until(() => bb.fleetStats()!.failures === 2);
    expect(state(PRIMARY)).toBe('closed');
  });

  it('slow: a collector that accepts and never answers neither delays a call nor stays connected past the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { bb, clock, state } = await instance(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { connectTimeoutMs: 10_000 });
      await until(() => sockets.length >= 1);
      expect(bb.fleetStats()!.state).toBe('connecting');
      // The call does not wait for the feed: it resolves while the feed hangs.
      expect(await bb.execute(PRIMARY, async () => 'answer')).toBe('answer');
      await clock.advance(10_000);
      expect(bb.fleetStats()).toMatchObject({ state: 'backoff', failures: 1, lastError: 'the feed was silent past its timeout' });
      expect(state(PRIMARY)).toBe('closed');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('silent: an open feed with no heartbeat for idleTimeoutMs is reopened', async () => {
    let c!: FakeCollector;
    c = await fakeCollector(feedWith(() => c));
    const { bb, clock } = await instance(c.url, { idleTimeoutMs: 45_000 });
    await until(() => bb.fleetStats()!.state === 'open');
    await clock.advance(45_000);
    await clock.advance(2_000);
    await until(() => c.feeds.length === 2);
  });

  it('never keeps a host process alive while its feed is open', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const script = `
      import { createBreakerbox } from '@breakerbox/sdk';
      const bb = createBreakerbox({ telemetry: { url: 'http://127.0.0.1:${port}', service: 's', requestTimeoutMs: 60000 }, fleet: true });
      await bb.execute({ provider: 'p', endpoint: 'chat', model: 'm' }, async () => 'ok');
      setTimeout(() => console.log('work done, feed ' + bb.fleetStats().state), 300);
    `;
    try {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const code = await new Promise<number | string>((resolve) => {
        const guard = setTimeout(() => (child.kill('SIGKILL'), resolve('still alive after 45 s')), 45_000);
        child.once('exit', (c) => (clearTimeout(guard), resolve(c ?? -1)));
      });
      expect(code).toBe(0);
      expect(out).toContain('work done, feed connecting');
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  }, 60_000);
});

/**
 * `for_s` on the data's timeline (docs/alerts.md, "for_s on the data's timeline"): minutes of
 * a failing service replayed into a fresh collector whose clock is at their end page on the
 * first pass; a condition that began seconds ago stays pending; a late batch and a restart
 * on the same SQLite file page at once too. Events go through the real ingest endpoint; the
 * collector runs on a hand-driven clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { ManualClock } from '../support/manual-clock.ts';
import { sdkOutageTransitions } from '../verdicts/issue-23-cases.ts';
import { MIN, collector, probes, windows, type TestCollector } from '../verdicts/support.ts';

const QUOTA: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const AUTH: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-latest' };
const CAPACITY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'mistralai/Mixtral-8x7B-Instruct-v0.1' };
const FRESH: BreakerKey = { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest' };

/** 09:00:05 UTC: the collector's clock, five seconds past the minute the replayed data ends at. */
const END = Date.parse('2026-12-03T09:00:05Z');

let open: TestCollector[] = [];
afterEach(async () => {
  for (const c of open) await c.close();
  open = [];
});

async function fresh(clock: ManualClock, options: { dir?: string; tokenName?: string } = {}) {
  const c = await collector({ clock, ...options });
  open.push(c);
  return c;
}

/** Both locations serve the key's probes: only the clients fail. */
async function probed(c: TestCollector, key: BreakerKey, from: number, to: number) {
  for (const location of ['eu-west', 'us-east']) await c.send({ service: 'prober', instance: location }, probes(key, location, from, to, 'ok'));
}

async function degradedAlert(c: TestCollector, key: BreakerKey) {
  return (await c.get('/api/alerts')).alerts.find((a: any) => a.rule === 'clients_degraded' && a.key?.model === key.model);
}

describe('a service the stored data already shows failing for minutes', () => {
  const guises: { name: string; key: BreakerKey; events: (now: number) => [string, string, TelemetryEvent[]][]; verdict: [string, string] }[] = [
    {
      name: 'quota: billing-svc 429s on its exhausted quota for 8 minutes, other-svc fine',
      key: QUOTA,
      events: (now) => [
        ['billing-svc', 'pod-1', [...windows(QUOTA, now - 15 * MIN, now - 8 * MIN, { calls: 10 }), ...windows(QUOTA, now - 8 * MIN, now, { calls: 10, errors: { quota: 10 } })]],
        ['other-svc', 'pod-1', windows(QUOTA, now - 15 * MIN, now, { calls: 10 })],
      ],
      verdict: ['self_inflicted', 'quota'],
    },
    {
      name: 'auth: every call 401 for 6 minutes after a key rotation, on two pods',
      key: AUTH,
      events: (now) =>
        ['pod-1', 'pod-2'].map((pod) => ['drafts', pod, [...windows(AUTH, now - 15 * MIN, now - 6 * MIN, { calls: 10 }), ...windows(AUTH, now - 6 * MIN, now, { calls: 10, errors: { auth: 10 } })]] as [string, string, TelemetryEvent[]]),
      verdict: ['self_inflicted', 'client_errors'],
    },
    {
      name: 'capacity: a bulkhead too small rejects a third of the calls for 7 minutes, latency normal',
      key: CAPACITY,
      events: (now) => [['summaries', 'pod-1', [...windows(CAPACITY, now - 15 * MIN, now - 7 * MIN, { calls: 10, latencyMs: 200 }), ...windows(CAPACITY, now - 7 * MIN, now, { calls: 10, rejected: 5, latencyMs: 200 })]]],
      verdict: ['self_inflicted', 'capacity'],
    },
  ];

  for (const g of guises) {
    it(`${g.name}: fires on the first pass, timed from the data (for_s 60)`, async () => {
      const clock = new ManualClock(END);
      const c = await fresh(clock);
      for (const [service, instance, events] of g.events(c.now)) await c.send({ service, instance }, events);
      await probed(c, g.key, c.now - 15 * MIN, c.now);
      await c.app.alerts.evaluate();
      const a = await degradedAlert(c, g.key);
      // The run covers the rule's whole 5-minute window: for_s counts from its start.
      expect(a).toMatchObject({ state: 'firing', started_at: END - 5 * MIN, fired_at: END, severity: 'critical', verdict: g.verdict[0], hint: g.verdict[1] });
    });
  }

  it('a late batch: the failing pod\'s buffered minutes arrive after a pass that saw only its healthy peer, and the next pass fires', async () => {
    const clock = new ManualClock(END);
    const c = await fresh(clock);
    await c.send({ service: 'drafts', instance: 'pod-2' }, windows(AUTH, c.now - 15 * MIN, c.now, { calls: 10 }));
    await c.send({ service: 'drafts', instance: 'pod-1' }, windows(AUTH, c.now - 15 * MIN, c.now - 7 * MIN, { calls: 10 }));
    await probed(c, AUTH, c.now - 15 * MIN, c.now);
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, AUTH)).toBeUndefined();
    // pod-1 could not reach the collector for 7 minutes: its SDK sends the buffered windows at once.
    await clock.advance(15_000);
    await c.send({ service: 'drafts', instance: 'pod-1' }, windows(AUTH, c.now - 7 * MIN, c.now, { calls: 10, errors: { auth: 10 } }));
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, AUTH)).toMatchObject({ state: 'firing', started_at: END - 5 * MIN + 15_000, fired_at: END + 15_000, hint: 'client_errors' });
  });

  it('a restart: a new collector on the same SQLite file fires on its first pass', async () => {
    const clock = new ManualClock(END);
    const before = await fresh(clock);
    await before.send({ service: 'billing-svc', instance: 'pod-1' }, windows(QUOTA, before.now - 6 * MIN, before.now, { calls: 10, errors: { quota: 10 } }));
    await probed(before, QUOTA, before.now - 15 * MIN, before.now);
    // It stored the minutes and went down before its next pass.
    open = open.filter((c) => c !== before);
    await before.app.close();
    await clock.advance(20_000);
    const after = await fresh(clock, { dir: before.dir, tokenName: 'after-restart' });
    await after.app.alerts.evaluate();
    expect(await degradedAlert(after, QUOTA)).toMatchObject({ state: 'firing', started_at: END + 20_000 - 5 * MIN, fired_at: END + 20_000, hint: 'quota' });
  });
});

describe('a condition that began seconds ago', () => {
  it('stays pending on the first pass, and fires once the data shows it held for_s', async () => {
    const clock = new ManualClock(END);
    const c = await fresh(clock);
    // A new service, every call failing on quota, for the last 20 s only (30 calls: above min_calls).
    await c.send({ service: 'search', instance: 'pod-1' }, windows(FRESH, c.now - 20_000, c.now, { calls: 15, errors: { quota: 15 } }));
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, FRESH)).toMatchObject({ state: 'pending', started_at: c.now, fired_at: null });
    await clock.advance(30_000);
    await c.send({ service: 'search', instance: 'pod-1' }, windows(FRESH, c.now, c.now + 30_000, { calls: 15, errors: { quota: 15 } }));
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, FRESH)).toMatchObject({ state: 'pending' });
    await clock.advance(30_000);
    await c.send({ service: 'search', instance: 'pod-1' }, windows(FRESH, c.now + 30_000, c.now + 60_000, { calls: 15, errors: { quota: 15 } }));
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, FRESH)).toMatchObject({ state: 'firing', fired_at: END + 60_000 });
  });

  it('across a minute boundary (20 s straddling it) stays pending: the first minute is not credited whole', async () => {
    const clock = new ManualClock(END + 5_000);
    const c = await fresh(clock);
    await c.send({ service: 'search', instance: 'pod-1' }, windows(FRESH, c.now - 10_000, c.now + 10_000, { calls: 15, errors: { quota: 15 } }));
    await c.app.alerts.evaluate();
    expect(await degradedAlert(c, FRESH)).toMatchObject({ state: 'pending', fired_at: null });
  });
});

const OPEN: BreakerKey = { provider: 'groq', endpoint: 'chat', model: 'llama-3.3-70b-versatile' };
const PROBED: BreakerKey = { provider: 'vertex', endpoint: 'generateContent', model: 'gemini-2.0-flash', region: 'europe-west4' };

describe('open_share and probe_failing, with a for_s of 2 minutes', () => {
  const config = { alerts: { rules: { open_share: { for_s: 120 }, probe_failing: { for_s: 120 } } } };

  it('open_share: breakers open (the SDK\'s open/half-open cycle) for the last 6 minutes fire on the first pass', async () => {
    const clock = new ManualClock(END);
    const c = await collector({ clock, config });
    open.push(c);
    for (const [pod, seed] of [['pod-1', 1], ['pod-2', 2]] as const) {
      await c.send({ service: 'chat-svc', instance: pod }, [
        { type: 'transition', ts: c.now - 16 * MIN, key: OPEN, from: null, to: 'closed', reason: 'created' },
        ...windows(OPEN, c.now - 15 * MIN, c.now - 6 * MIN, { calls: 10 }),
        ...(await sdkOutageTransitions(OPEN, c.now - 6 * MIN, 6 * MIN, seed)),
        ...windows(OPEN, c.now - 6 * MIN, c.now, { calls: 1, errors: { server: 1 }, short_circuited: 9 }),
      ]);
    }
    await c.app.alerts.evaluate();
    const a = (await c.get('/api/alerts')).alerts.find((x: any) => x.rule === 'open_share' && x.key?.model === OPEN.model);
    // The breakers opened within the first second of minute −6: that minute is not credited, the 5 after it are.
    expect(a).toMatchObject({ state: 'firing', started_at: c.now - 5 * MIN, fired_at: END });
  });

  it('probe_failing: 6 failed probes in a row fire on the first pass; a run of 3 that just reached the threshold stays pending', async () => {
    const clock = new ManualClock(END);
    const c = await collector({ clock, config });
    open.push(c);
    await c.send({ service: 'prober', instance: 'eu' }, [
      ...probes(PROBED, 'eu-west', c.now - 20 * MIN, c.now - 6 * MIN, 'ok'),
      ...probes(PROBED, 'eu-west', c.now - 6 * MIN, c.now, 'error', { error_class: 'server', status: 503 }),
    ]);
    await c.send({ service: 'prober', instance: 'us' }, [
      ...probes(PROBED, 'us-east', c.now - 20 * MIN, c.now - 3 * MIN, 'ok'),
      ...probes(PROBED, 'us-east', c.now - 3 * MIN, c.now, 'error', { error_class: 'server', status: 503 }),
    ]);
    await c.app.alerts.evaluate();
    const alerts = (await c.get('/api/alerts')).alerts.filter((x: any) => x.rule === 'probe_failing');
    // eu-west: its 3rd failed probe fell in minute −4, so the condition held from the end of that minute on.
    expect(alerts.find((x: any) => x.location === 'eu-west')).toMatchObject({ state: 'firing', started_at: c.now - 3 * MIN, fired_at: END, value: 6 });
    expect(alerts.find((x: any) => x.location === 'us-east')).toMatchObject({ state: 'pending', started_at: c.now, fired_at: null, value: 3 });
  });
});

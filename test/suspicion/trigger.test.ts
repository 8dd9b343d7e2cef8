/**
 * Probe on suspicion, the collector's trigger, on the server clock: a key whose breakers stay
 * open, or whose instances keep failing at the provider, gets one burst of probe requests per
 * covering location; a blip (one failed window, a breaker open for a second) gets none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const START = Date.parse('2025-06-01T00:00:00Z');
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' };
const OTHER: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' };
const PODS = ['pod-1', 'pod-2', 'pod-3'];

let c: TestCollector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

/** 15 healthy minutes of clients and probes (eu-west and us-east probe KEY; ap-south probes only OTHER). */
async function healthy(config: Record<string, unknown> = {}) {
  const clock = manualClock(START);
  c = await collector({ clock, config });
  const from = START - 15 * MIN;
  for (const pod of PODS) {
    await c.send({ service: 'ticket-drafts', instance: pod }, [transition(KEY, from - MIN, null, 'closed', 'created'), ...windows(KEY, from, START - 60_000, { calls: 10 })]);
  }
  for (const location of ['eu-west', 'us-east']) await c.send({ service: 'probe', instance: location }, probes(KEY, location, from, START, 'ok'));
  await c.send({ service: 'probe', instance: 'ap-south' }, probes(OTHER, 'ap-south', from, START, 'ok'));
  return { c, clock };
}

const sendPods = (events: (pod: string) => TelemetryEvent[]) => Promise.all(PODS.map((pod) => c!.send({ service: 'ticket-drafts', instance: pod }, events(pod))));

describe('probe on suspicion: the trigger', () => {
  it('asks every location covering a key whose breakers stay open for a burst of probes, once per cooldown', async () => {
    const { clock } = await healthy();
    const opened = START - 30_000;
    await sendPods(() => [transition(KEY, opened, 'closed', 'open'), ...windows(KEY, START - 60_000, START, { calls: 10, errors: { server: 8 } })]);

    const first = await c!.app.suspicion.evaluate(START);
    expect(first.opened).toHaveLength(1);
    expect(first.opened[0]).toMatchObject({ reason: 'breaker_open', startedAt: START - 60_000, triggeredAt: START, locations: ['eu-west', 'us-east'] });

    // The burst: three requests per location, due now, in 0.5 s and in 1 s; none for ap-south.
    const store = c!.app.suspicion.store;
    expect((await store.take('eu-west', START, 10)).map((r) => r.key)).toEqual([KEY]);
    expect(await store.take('ap-south', START + 60_000, 10)).toEqual([]);
    expect(await store.nextDue('eu-west', START)).toBe(START + 500);
    expect(await store.take('eu-west', START + 1_000, 10)).toHaveLength(2);
    expect(await store.take('us-east', START + 1_000, 10)).toHaveLength(3);

    // Still open 10 s later: no second burst within the cooldown.
    clock.advance(10_000);
    expect((await c!.app.suspicion.evaluate(START + 10_000)).opened).toEqual([]);
    const counts = (await c!.get('/api/probes')).locations.map((l: any) => [l.location, l.on_demand]);
    expect(counts).toEqual([
      ['ap-south', { requested: 0, delivered: 0, served: 0, pending: 0, expired: 0 }],
      ['eu-west', { requested: 3, delivered: 3, served: 0, pending: 0, expired: 0 }],
      ['us-east', { requested: 3, delivered: 3, served: 0, pending: 0, expired: 0 }],
    ]);
  });

  it('ignores a breaker that opens and closes within seconds, and a single failed window of fewer than min_instances instances', async () => {
    await healthy();
    await sendPods((pod) => [
      transition(KEY, START - 50_000, 'closed', 'open'),
      transition(KEY, START - 48_000, 'open', 'closed', 'probes_succeeded'),
      ...windows(KEY, START - 60_000, START - 10_000, { calls: 10 }),
      // Two of the three instances fail one window: under min_instances (3), a blip.
      ...windows(KEY, START - 10_000, START, pod === 'pod-3' ? { calls: 10 } : { calls: 10, errors: { server: 10 } }),
    ]);
    expect(await c!.app.suspicion.evaluate(START)).toMatchObject({ degrading: 0, opened: [] });
    expect((await c!.get('/api/probes')).locations.every((l: any) => l.on_demand.requested === 0)).toBe(true);
  });

  it('triggers on provider-side errors that last two windows of an instance, over the minimum volume', async () => {
    await healthy();
    await sendPods(() => [...windows(KEY, START - 60_000, START - 20_000, { calls: 10 }), ...windows(KEY, START - 20_000, START, { calls: 10, errors: { server: 4 } })]);
    const r = await c!.app.suspicion.evaluate(START);
    expect(r.opened.map((s) => [s.reason, s.startedAt])).toEqual([['provider_errors', START - 20_000]]);

    // Client-side classes are not the provider degrading.
    const quiet = await collector({ clock: manualClock(START) });
    try {
      for (const pod of PODS) {
        await quiet.send({ service: 's', instance: pod }, windows(KEY, START - 30_000, START, { calls: 10, errors: { bad_request: 9 } }));
      }
      await quiet.send({ service: 'probe', instance: 'eu-west' }, probes(KEY, 'eu-west', START - 15 * MIN, START, 'ok'));
      expect((await quiet.app.suspicion.evaluate(START)).opened).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('triggers at once when min_instances instances fail together, each with one window (the SDK reports its failure onset early)', async () => {
    await healthy();
    // Each instance's first failing window, cut 2 s into the outage: 4 calls, all failed at the provider.
    const onset = (traffic: Parameters<typeof windows>[3]) => windows(KEY, START - 10_000, START, traffic).map((w) => ({ ...w, start: START - 2_000 }));
    await sendPods(() => [...windows(KEY, START - 60_000, START - 2_000, { calls: 10 }), ...onset({ calls: 4, errors: { server: 4 } })]);
    const r = await c!.app.suspicion.evaluate(START);
    expect(r.opened.map((x) => [x.reason, x.startedAt, x.locations])).toEqual([['instances_failing', START - 2_000, ['eu-west', 'us-east']]]);

    // Client-side classes on every instance are not the provider failing.
    const quiet = await collector({ clock: manualClock(START) });
    try {
      for (const pod of PODS) await quiet.send({ service: 's', instance: pod }, onset({ calls: 4, errors: { auth: 4 } }));
      await quiet.send({ service: 'probe', instance: 'eu-west' }, probes(KEY, 'eu-west', START - 15 * MIN, START, 'ok'));
      expect((await quiet.app.suspicion.evaluate(START)).opened).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('joins a run of failing windows that arrives over several passes, and a healthy window after it ends the run', async () => {
    // Instances failing together are their own signal (above): here only the run of one instance counts.
    await healthy({ suspicion: { min_instances: 10 } });
    // Pass 1: one failing window per instance so far, a blip.
    await sendPods(() => windows(KEY, START - 20_000, START - 10_000, { calls: 10, errors: { server: 4 } }));
    expect(await c!.app.suspicion.evaluate(START - 9_000)).toMatchObject({ degrading: 0, opened: [] });
    // Pass 2: the next window fails too; only it is new to the trigger, the run is two long.
    await sendPods(() => windows(KEY, START - 10_000, START, { calls: 10, errors: { timeout: 5 } }));
    const r = await c!.app.suspicion.evaluate(START);
    expect(r.opened.map((x) => [x.reason, x.startedAt])).toEqual([['provider_errors', START - 20_000]]);
    // Pass 3: a healthy window on every instance ends the run.
    await sendPods(() => windows(KEY, START, START + 10_000, { calls: 10 }));
    expect(await c!.app.suspicion.evaluate(START + 11_000)).toMatchObject({ degrading: 0 });
  });

  it('bounds the requests per location per hour across keys', async () => {
    await healthy({ suspicion: { max_per_location_per_hour: 4 } });
    const from = START - 15 * MIN;
    await c!.send({ service: 'probe', instance: 'eu-west' }, probes(OTHER, 'eu-west', from, START, 'ok'));
    await sendPods(() => [transition(KEY, START - 30_000, 'closed', 'open'), transition(OTHER, START - 30_000, null, 'open')]);
    const r = await c!.app.suspicion.evaluate(START);
    expect(r.opened).toHaveLength(2);
    const counts = Object.fromEntries((await c!.get('/api/probes')).locations.map((l: any) => [l.location, l.on_demand.requested]));
    // eu-west covers both keys but takes 4 requests in the hour; us-east and ap-south one key each.
    expect(counts).toEqual({ 'ap-south': 3, 'eu-west': 4, 'us-east': 3 });
  });

  it('stays off when disabled by config', async () => {
    await healthy({ suspicion: { enabled: false } });
    await sendPods(() => [transition(KEY, START - 30_000, 'closed', 'open')]);
    expect((await c!.app.suspicion.evaluate(START)).opened).toEqual([]);
    expect((await c!.get('/api/probes')).locations.every((l: any) => l.on_demand === null)).toBe(true);
  });
});

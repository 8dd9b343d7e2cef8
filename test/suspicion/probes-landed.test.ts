/**
 * The leader evaluates as soon as the probes a suspicion asked for have answered, not at the
 * next alert interval: the check says so once per new answer, only when every location asked
 * has `min_probes` probes since the degradation began.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { createProbesLanded } from '../../server/suspicion/probes-landed.ts';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const START = Date.parse('2025-06-01T00:00:00Z');
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' };
const LOCATIONS = ['eu-west', 'us-east'];

let c: TestCollector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

/** Two pods failing for 20 s with breakers open 12 s, both locations probing until a minute ago; the trigger asks both. */
async function suspected(): Promise<TestCollector> {
  c = await collector({ clock: manualClock(START) });
  const from = START - 15 * MIN;
  for (const pod of ['pod-1', 'pod-2']) {
    await c.send({ service: 'ticket-drafts', instance: pod }, [
      transition(KEY, from - MIN, null, 'closed', 'created'),
      ...windows(KEY, from, START - 20_000, { calls: 10 }),
      ...windows(KEY, START - 20_000, START, { calls: 10, errors: { server: 8 } }),
      transition(KEY, START - 12_000, 'closed', 'open'),
    ]);
  }
  for (const location of LOCATIONS) await c.send({ service: 'probe', instance: location }, probes(KEY, location, from, START - 55_000, 'ok'));
  expect((await c.app.suspicion.evaluate(START)).opened).toHaveLength(1);
  return c;
}

/** `n` asked-for probes from a location, failing, starting `at`. */
async function answer(location: string, at: number, n = 3): Promise<void> {
  const events: TelemetryEvent[] = Array.from({ length: n }, (_, i) => ({
    type: 'probe', ts: at + i * 3_000, key: KEY, location, outcome: 'error', trigger: 'suspicion', error_class: 'server', status: 503, latency_ms: { total: 300 },
  }));
  await c!.send({ service: 'probe', instance: location }, events);
}

describe('requested probes landing', () => {
  it('answers true once every location asked has min_probes probes since the degradation, once per new answer', async () => {
    const c = await suspected();
    const landed = createProbesLanded(c.app.storage.suspicions, 3, 45_000);
    expect(await landed.check(START + 1_000)).toBe(false);
    await answer('eu-west', START + 1_000);
    expect(await landed.check(START + 8_000)).toBe(false); // us-east has not answered
    await answer('us-east', START + 1_000, 2);
    expect(await landed.check(START + 8_000)).toBe(false); // two of three
    await answer('us-east', START + 7_000, 1);
    expect(await landed.check(START + 8_000)).toBe(true);
    expect(await landed.check(START + 9_000)).toBe(false); // nothing new since
    await answer('eu-west', START + 10_000, 1);
    expect(await landed.check(START + 11_000)).toBe(true);
  });

  it('forgets a suspicion older than the time a verdict waits for its probes', async () => {
    const c = await suspected();
    const landed = createProbesLanded(c.app.storage.suspicions, 3, 45_000);
    for (const l of LOCATIONS) await answer(l, START + 1_000);
    expect(await landed.check(START + 46_000)).toBe(false);
  });
});

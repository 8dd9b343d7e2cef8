/**
 * Exercising the fallbacks: a configured share of normal traffic goes through each
 * fallback route first, reported as `exercised` on the fallback key's window (not as a
 * failover); an exercised fallback that fails hands the request to the primary at once.
 * The share is drawn from the SDK's injectable `random`, so the tests are exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ask, rig, type Rig } from './scenario-helpers.ts';
import type { TasksEvent, WindowEvent } from '../../sdk/index.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
let r: Rig;
afterEach(async () => r?.close());

/** A `random` that yields the given values in turn (then 0.99: never exercised). */
function draws(...values: number[]): () => number {
  let i = 0;
  return () => values[i++] ?? 0.99;
}

function events() {
  const all = r.bb.collect();
  return {
    windows: all.filter((e): e is WindowEvent => e.type === 'window'),
    tasks: all.find((e): e is TasksEvent => e.type === 'tasks'),
  };
}

describe('fallback exercise', () => {
  it('sends the configured share through the fallback and reports it as exercised, not as a failover', async () => {
    r = await rig({ exerciseShare: 0.05, fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }, { random: draws(0.5, 0.01, 0.5, 0.5) });
    const served: string[] = [];
    for (let i = 0; i < 4; i++) served.push((await r.client.chat.completions.create(ask(PRIMARY))).model);
    expect(served).toEqual([PRIMARY, FALLBACK, PRIMARY, PRIMARY]);
    const { windows, tasks } = events();
    expect(windows.find((w) => w.key.model === FALLBACK)).toMatchObject({ calls: 1, ok: 1, exercised: { calls: 1, ok: 1 } });
    expect(windows.find((w) => w.key.model === PRIMARY)).not.toHaveProperty('exercised');
    expect(tasks).toMatchObject({ completed: 4, fallback: { invoked: 0, failed: 0 }, levels: { '0': 3, '2': 1 } });
  });

  it('hands a request whose exercised fallback fails to the primary with one try, and reports the failure', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK, exerciseShare: 0.1 }] } }, { random: draws(0.05) });
    r.fake.script(FALLBACK, { kind: 'status', status: 503 }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(PRIMARY);
    expect(r.fake.attemptsFor(FALLBACK)).toHaveLength(1);
    const { windows, tasks } = events();
    expect(windows.find((w) => w.key.model === FALLBACK)).toMatchObject({ calls: 1, ok: 0, exercised: { calls: 1, ok: 0 }, errors: { server: 1 } });
    expect(tasks).toMatchObject({ completed: 1, levels: { '0': 1 }, fallback: { invoked: 0, failed: 0 } });
    expect(r.calls[0]).toMatchObject({ ok: true, model: PRIMARY, attempts: 2 });
  });

  it('is off by default', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }, { random: () => 0 });
    for (let i = 0; i < 3; i++) expect((await r.client.chat.completions.create(ask(PRIMARY))).model).toBe(PRIMARY);
    expect(r.fake.attemptsFor(FALLBACK)).toHaveLength(0);
  });
});

/**
 * The drill controller on a hand-driven clock: a command runs its kinds one after another,
 * `step_ms` each, from receipt on the SDK's clock, ends by itself (its remaining counters
 * handed to telemetry once), and is refused when drills are off or the service is another.
 */
import { describe, expect, it } from 'vitest';
import type { BreakerKey, DrillCommand } from '@breakerbox/protocol';
import { DrillController, type DrillOutcome } from '../../sdk/drills/drill-controller.ts';
import type { DrillRun } from '../../sdk/drills/drill-run.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const OTHER: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const command = (o: Partial<DrillCommand> = {}): DrillCommand => ({ id: 'd1', service: 'drafts', kinds: ['rate_limit', 'truncated'], step_ms: 60_000, issued_at: 0, ...o });

function controller(enabled = true) {
  const clock = new ManualClock();
  const finished: DrillRun[] = [];
  const steps: Array<{ at: number; events: ReturnType<DrillRun['collect']> }> = [];
  const c = new DrillController(enabled, 'drafts', clock, [100, 1000], {
    finished: (r) => finished.push(r),
    stepEnded: (r) => steps.push({ at: clock.now(), events: r.collect(clock.now()) }),
  });
  const outcomes: DrillOutcome[] = [];
  c.onDrill((o) => outcomes.push(o));
  return { c, clock, finished, outcomes, steps };
}

describe('drill controller', () => {
  it('runs each kind for step_ms on the SDK clock, then ends once and hands over its last counters', async () => {
    const { c, clock, finished, outcomes } = controller();
    expect(c.apply(command())).toMatchObject({ outcome: 'started', endsAt: clock.now() + 120_000 });
    const run = c.trafficFor(KEY)!;
    expect(run.faultFor(KEY, true)).toBe('rate_limit');
    expect(run.faultFor(OTHER, false)).toBeUndefined(); // a fallback is not drilled when no keys are named
    await clock.advance(60_000);
    expect(c.state()).toMatchObject({ state: 'running', kind: 'truncated' });
    run.keyStats(KEY).attempt(10, 'truncated', false, false, false, false);
    await clock.advance(59_999);
    expect(c.trafficFor(KEY)).toBe(run);
    await clock.advance(1);
    expect(c.state()).toEqual({ state: 'idle' });
    expect(c.trafficFor(KEY)).toBeUndefined();
    expect(finished).toEqual([run]);
    expect(outcomes.at(-1)).toEqual({ outcome: 'ended', id: 'd1', why: 'finished' });
    expect(run.faultFor(KEY, true)).toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('cuts the run\'s windows at each boundary between two drills, so no window spans two of them', async () => {
    const { c, clock, finished, steps } = controller();
    const t0 = clock.now();
    c.apply(command({ kinds: ['rate_limit', 'primary_down', 'truncated'], step_ms: 3_000 }));
    const run = c.trafficFor(KEY)!;
    run.keyStats(KEY).attempt(10, 'rate_limit', false, false, false, false);
    await clock.advance(3_000);
    run.keyStats(KEY).attempt(10, 'network', false, false, false, false);
    await clock.advance(3_000);
    expect(steps.map((s) => s.at - t0)).toEqual([3_000, 6_000]);
    const windowsOf = (i: number) => steps[i]!.events.filter((e) => e.type === 'window');
    expect(windowsOf(0)).toEqual([expect.objectContaining({ start: t0, end: t0 + 3_000, errors: { rate_limit: 1 } })]);
    expect(windowsOf(1)).toEqual([expect.objectContaining({ start: t0 + 3_000, end: t0 + 6_000, errors: { network: 1 } })]);
    // The last drill's end is the run's: its counters go with \`finished\`, not as a step.
    await clock.advance(3_000);
    expect(steps).toHaveLength(2);
    expect(finished).toEqual([run]);
    expect(clock.pending).toBe(0);
  });

  it('cuts no more windows once a run is stopped', async () => {
    const { c, clock, steps } = controller();
    c.apply(command({ step_ms: 3_000 }));
    c.apply(command({ step_ms: 0 }));
    expect(clock.pending).toBe(0);
    await clock.advance(10_000);
    expect(steps).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it('drills named keys wherever they sit in a chain, and only calls whose chain starts at one', () => {
    const { c } = controller();
    c.apply(command({ keys: [OTHER] }));
    expect(c.trafficFor(KEY)).toBeUndefined();
    const run = c.trafficFor(OTHER)!;
    expect(run.faultFor(OTHER, false)).toBe('rate_limit');
    expect(run.faultFor(KEY, true)).toBeUndefined();
  });

  it('replaces a running drill with a newer one, ignores a replay of the same id, and stops on step_ms 0', () => {
    const { c, finished, outcomes } = controller();
    c.apply(command());
    expect(c.apply(command())).toMatchObject({ outcome: 'ignored', why: 'duplicate' });
    c.apply(command({ id: 'd2' }));
    expect(outcomes.map((o) => o.outcome)).toEqual(['started', 'ignored', 'ended', 'started']);
    expect(finished.map((r) => r.id)).toEqual(['d1']);
    expect(c.apply(command({ id: 'd2', step_ms: 0 }))).toEqual({ outcome: 'ended', id: 'd2', why: 'stopped' });
    expect(c.apply(command({ id: 'd3', step_ms: 0 }))).toMatchObject({ outcome: 'ignored', why: 'not_running' });
  });

  it('refuses every command when drills are off, for another service, or unreadable', () => {
    expect(controller(false).c.apply(command())).toMatchObject({ outcome: 'ignored', why: 'disabled' });
    const { c } = controller();
    expect(c.apply(command({ service: 'billing' }))).toMatchObject({ outcome: 'ignored', why: 'other_service' });
    expect(c.apply(null)).toMatchObject({ outcome: 'ignored', why: 'invalid' });
    expect(c.state()).toEqual({ state: 'idle' });
  });
});

import { describe, expect, it } from 'vitest';
import { leaderJob } from '../../server/plugins/leader-job.ts';
import { ManualClock } from '../support/manual-clock.ts';

const INTERVAL = 60_000;

/** A job whose runs the test finishes by hand, recording when each started. */
function harness(options: { leader?: boolean } = {}) {
  const clock = new ManualClock();
  const state = { leader: options.leader ?? true };
  const starts: number[] = [];
  const finishers: Array<(err?: Error) => void> = [];
  const errors: unknown[] = [];
  const job = leaderJob({
    intervalMs: INTERVAL,
    isLeader: () => state.leader,
    run: () => {
      starts.push(clock.now());
      return new Promise<void>((resolve, reject) => finishers.push((err) => (err ? reject(err) : resolve())));
    },
    onError: (err) => errors.push(err),
    timers: clock,
  });
  /** Finishes the oldest unfinished run. */
  const finish = async (err?: Error) => {
    finishers.shift()!(err);
    await clock.advance(0);
  };
  return { clock, state, starts, errors, job, finish };
}

describe('leaderJob', () => {
  it('runs once per interval while this collector is the leader, and not at all while it is not', async () => {
    const h = harness({ leader: false });
    h.job.start();
    await h.clock.advance(3 * INTERVAL);
    expect(h.starts).toEqual([]);

    h.state.leader = true;
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(1);
    await h.finish();
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(2);
    await h.finish();

    h.state.leader = false;
    await h.clock.advance(5 * INTERVAL);
    expect(h.starts).toHaveLength(2);
    await h.job.close();
  });

  it('never overlaps runs: ticks that fall due while a run is going are skipped, not queued', async () => {
    const h = harness();
    h.job.start();
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(1);
    expect(h.job.busy).toBe(true);
    // Three more intervals pass and a manual tick comes in: the slow run is still the only one.
    await h.clock.advance(3 * INTERVAL);
    h.job.tick();
    expect(h.starts).toHaveLength(1);

    await h.finish();
    expect(h.job.busy).toBe(false);
    // The next tick after the run ended starts the next run, on the original cadence.
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(2);
    expect(h.starts[1]! - h.starts[0]!).toBe(4 * INTERVAL);
    await h.finish();
    await h.job.close();
  });

  it('keeps its schedule after a failed run and reports the failure', async () => {
    const h = harness();
    h.job.start();
    await h.clock.advance(INTERVAL);
    const boom = new Error('database is locked');
    await h.finish(boom);
    expect(h.errors).toEqual([boom]);
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(2);
    await h.finish();
    await h.job.close();
  });

  it('stops on close: it waits for the run in progress, then leaves no timer and runs nothing more', async () => {
    const h = harness();
    h.job.start();
    await h.clock.advance(INTERVAL);
    expect(h.starts).toHaveLength(1);

    let closed = false;
    const closing = h.job.close().then(() => {
      closed = true;
    });
    await h.clock.advance(0);
    expect(closed).toBe(false);
    await h.finish();
    await closing;
    expect(closed).toBe(true);
    expect(h.clock.pending).toBe(0);

    await h.clock.advance(10 * INTERVAL);
    h.job.tick();
    h.job.start();
    expect(h.starts).toHaveLength(1);
    expect(h.clock.pending).toBe(0);
  });

  it('runs at once when ticked by hand (the storage jobs run on ready), still only as the leader', async () => {
    const h = harness({ leader: false });
    h.job.tick();
    expect(h.starts).toEqual([]);
    h.state.leader = true;
    h.job.tick();
    expect(h.starts).toEqual([h.clock.now()]);
    await h.finish();
    await h.job.close();
  });
});

/**
 * The cron scheduler under a blocked event loop: a tick its heartbeat reaches late still
 * runs (once, at its own slot), and a loop blocked past several slots runs only the newest
 * of them — never a burst. node-cron runs on `setTimeout` and `Date`, so both are faked:
 * moving the system clock without running timers is what a blocked loop looks like to it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CronScheduler, lateTolerance } from '../../probe/scheduler.ts';
import { captureLogger, configOf, rawTarget } from './helpers.ts';

const BASE = 'http://127.0.0.1:9/v1';
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const at = (s: number) => T0 + s * 1000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(at(0) + 500);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A 5 s target with no jitter on a started scheduler, and the slots it fired. */
function start() {
  const target = configOf({ targets: [rawTarget(BASE, 'a', { interval: '5s', jitter: '0s' })] }).targets[0]!;
  const { log, lines } = captureLogger();
  const scheduler = new CronScheduler({ timezone: 'UTC', logger: log });
  const fired: number[] = [];
  scheduler.add(target, (scheduledAt) => fired.push(scheduledAt));
  return { scheduler, fired, lines, target };
}

/** The event loop is blocked for `ms`: the clock moves on, no timer runs meanwhile. */
function blockLoop(ms: number) {
  vi.setSystemTime(Date.now() + ms);
}

describe('cron scheduler under load', () => {
  it('tolerates a tick as late as one interval (node-cron 4 would drop it after 1 s)', () => {
    const { target } = start();
    expect(target.jitterOffsetMs).toBe(0);
    expect(lateTolerance(target)).toBe(5_000);
    expect(lateTolerance({ schedule: { ...target.schedule, minGapMs: Number.POSITIVE_INFINITY } })).toBe(Number.POSITIVE_INFINITY);
  });

  it('runs a tick reached 2 s late, at its own slot', async () => {
    const { scheduler, fired, lines } = start();
    await vi.advanceTimersByTimeAsync(4_600); // to 00:05.100, past the first slot
    expect(fired).toEqual([at(5)]);
    blockLoop(2_000); // the heartbeat armed for 00:10 now runs at 00:12
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired.slice(0, 2)).toEqual([at(5), at(10)]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toEqual([at(5), at(10), at(15)]);
    expect(lines.filter((l) => l.includes('missed execution'))).toEqual([]);
    await scheduler.stop();
  });

  it('a loop blocked past two slots runs the newest once, not a burst of both', async () => {
    const { scheduler, fired, lines } = start();
    await vi.advanceTimersByTimeAsync(4_600);
    blockLoop(7_000); // the heartbeat armed for 00:10 runs at 00:17: slot 00:10 is past its successor
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toEqual([at(5), at(15)]);
    expect(lines.filter((l) => l.includes('missed execution'))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toEqual([at(5), at(15), at(20)]);
    await scheduler.stop();
  });
});

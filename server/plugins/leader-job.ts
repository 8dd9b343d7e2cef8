/**
 * A background job of the fleet: it runs on an interval, only on the collector that holds
 * the leader lease (once per fleet, not once per collector), one run at a time — a run still
 * going when the next is due makes that tick a no-op rather than a second, overlapping run.
 * Pruning, the hourly aggregation, the alert evaluation and the suspicion trigger are each one.
 */
import { systemClock, type Clock, type TimerHandle } from '@breakerbox/protocol';

/** What a leader job runs, how often, and on whose say-so. */
export interface LeaderJobOptions {
  /** Time between ticks, ms. */
  intervalMs: number;
  /** Whether this collector holds the leader lease now (asked at every tick). */
  isLeader: () => boolean;
  /** One run of the job. */
  run: () => Promise<unknown>;
  /** Told of a run that failed; the job keeps its schedule. */
  onError: (err: unknown) => void;
  /** Where the ticks come from: the event loop's timers (background: they keep no process alive) unless a test drives them. */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

/** A started or startable leader job. */
export interface LeaderJob {
  /** Starts the ticks (the first one interval from now); idempotent. */
  start(): void;
  /** Runs now, unless a run is going, this collector is not the leader, or the job is closed. */
  tick(): void;
  /** Whether a run is going now. */
  readonly busy: boolean;
  /** Stops the ticks; resolves once the run in progress, if any, has settled. */
  close(): Promise<void>;
}

/** Creates a leader job; nothing runs until `start` or `tick`. */
export function leaderJob(options: LeaderJobOptions): LeaderJob {
  const timers = options.timers ?? systemClock;
  let running: Promise<void> | null = null;
  let timer: TimerHandle | undefined;
  let closed = false;

  const tick = (): void => {
    if (closed || running || !options.isLeader()) return;
    running = (async () => {
      try {
        await options.run();
      } catch (err) {
        options.onError(err);
      }
    })().finally(() => {
      running = null;
    });
  };

  // Each tick schedules the next before it runs, so the cadence does not drift with run time.
  const schedule = (): void => {
    timer = timers.setTimeout(
      () => {
        if (closed) return;
        schedule();
        tick();
      },
      options.intervalMs,
      true,
    );
  };

  return {
    start() {
      if (closed || timer !== undefined) return;
      schedule();
    },
    tick,
    get busy() {
      return running !== null;
    },
    async close() {
      closed = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

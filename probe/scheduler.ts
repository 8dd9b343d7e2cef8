/**
 * When probes fire. The production scheduler runs each target's cron expression with
 * node-cron, then waits the target's stable jitter offset before firing. Tests and
 * benchmarks can substitute their own `Scheduler` (e.g. one they fire by hand).
 *
 * A late tick still runs. node-cron 4 drops a tick its heartbeat reaches more than
 * `missedExecutionTolerance` late (1 s by default), so on a busy machine due probes
 * vanished — and the collector's lateness figures and verdicts assume every due probe
 * runs, late or not. The tolerance is therefore the schedule's shortest gap: node-cron
 * runs a slot only while it is less late than the gap to the next slot, so a tick late
 * by under one interval runs once, late; when the loop was blocked past several slots,
 * only the newest runs (once) and the older ones are logged as missed — never a burst.
 */
import cron from 'node-cron';
import type { Logger as CronLogger, ScheduledTask } from 'node-cron';
import type { TargetConfig } from './config-types.ts';
import type { Logger } from './logger.ts';

/** Calls `fire(scheduledAt)` for each of a target's runs; `scheduledAt` includes jitter. */
export interface Scheduler {
  add(target: TargetConfig, fire: (scheduledAt: number) => void): void;
  /** Stops every future run (runs already fired are not affected). */
  stop(): Promise<void>;
}

/** Options of `CronScheduler`. */
export interface CronSchedulerOptions {
  timezone: string;
  logger: Logger;
  now?: () => number;
}

/**
 * How late a tick may be and still run: one interval (the schedule's shortest gap). A
 * cron whose gap could not be sampled gets no limit; node-cron still never runs a slot
 * once the next one is due.
 */
export function lateTolerance(target: Pick<TargetConfig, 'schedule'>): number {
  const gap = target.schedule.minGapMs;
  return Number.isFinite(gap) && gap > 0 ? gap : Number.POSITIVE_INFINITY;
}

/** node-cron driven scheduler with a per-target jitter offset. */
export class CronScheduler implements Scheduler {
  private readonly tasks: ScheduledTask[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly timezone: string;
  private readonly now: () => number;
  private readonly cronLogger: CronLogger;
  private stopped = false;

  constructor(opts: CronSchedulerOptions) {
    this.timezone = opts.timezone;
    this.now = opts.now ?? Date.now;
    const log = opts.logger;
    this.cronLogger = {
      info: (m) => log.debug(`node-cron: ${m}`),
      warn: (m) => log.warn(`node-cron: ${m}`),
      error: (m) => log.error(`node-cron: ${m instanceof Error ? m.message : m}`),
      debug: () => undefined,
    };
  }

  add(target: TargetConfig, fire: (scheduledAt: number) => void): void {
    const offset = target.jitterOffsetMs;
    const task = cron.createTask(
      target.schedule.cron,
      (ctx) => {
        if (this.stopped) return;
        const scheduledAt = ctx.date.getTime() + offset;
        const wait = scheduledAt - this.now();
        if (wait <= 0) {
          fire(scheduledAt);
          return;
        }
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!this.stopped) fire(scheduledAt);
        }, wait);
        this.timers.add(timer);
      },
      {
        timezone: this.timezone,
        name: `probe:${target.name}`,
        logger: this.cronLogger,
        missedExecutionTolerance: lateTolerance(target),
      },
    );
    this.tasks.push(task);
    void task.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.tasks.map(async (t) => t.destroy()));
    this.tasks.length = 0;
  }
}

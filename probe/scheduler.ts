/**
 * When probes fire. The production scheduler runs each target's cron expression with
 * node-cron, then waits the target's stable jitter offset before firing. Tests and
 * benchmarks can substitute their own `Scheduler` (e.g. one they fire by hand).
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
      { timezone: this.timezone, name: `probe:${target.name}`, logger: this.cronLogger },
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

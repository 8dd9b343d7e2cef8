/**
 * Per-operation aggregation of logical tasks (a fallback chain run) for one interval:
 * the counters of a protocol v1 `tasks` event.
 */
import type { BreakerKey, TasksEvent } from '@breakerbox/protocol';
import { round6 } from './key-stats.ts';

const sameKey = (a: BreakerKey, b: BreakerKey) =>
  a.provider === b.provider && a.endpoint === b.endpoint && a.model === b.model && (a.region ?? '') === (b.region ?? '');

/** The outcome of one task, as the fallback chain reports it. */
export interface TaskOutcome {
  ok: boolean;
  /** Failover level that served it (0 primary … 4 degraded), when it succeeded. */
  level?: number;
  degraded: boolean;
  attempts: number;
  costUsd: number;
  /** True when any level past the primary was tried. */
  fallbackInvoked: boolean;
  /** True when a fallback level was tried and failed. */
  fallbackFailed: boolean;
  /** The chain's primary key (its first keyed level): the collector attributes fallback figures to it. */
  primaryKey?: BreakerKey;
}

/** The task counters of one operation. */
export class TaskStats {
  private completed = 0;
  private failed = 0;
  private degraded = 0;
  private attempts = 0;
  private costUsd = 0;
  private readonly levels = [0, 0, 0, 0, 0];
  private invoked = 0;
  private fbFailed = 0;
  /** The interval's primary key; null once two tasks of the operation named different ones. */
  private primary: BreakerKey | null | undefined = undefined;

  constructor(
    private readonly operation: string,
    private start: number,
  ) {}

  /** Records one finished task. */
  record(t: TaskOutcome): void {
    if (t.ok) {
      this.completed++;
      if (t.level !== undefined && t.level >= 0 && t.level <= 4) this.levels[t.level]!++;
    } else {
      this.failed++;
    }
    if (t.degraded) this.degraded++;
    this.attempts += t.attempts;
    this.costUsd += t.costUsd;
    if (t.fallbackInvoked) this.invoked++;
    if (t.fallbackFailed) this.fbFailed++;
    if (t.primaryKey && this.primary !== null) {
      if (this.primary === undefined) this.primary = t.primaryKey;
      else if (!sameKey(this.primary, t.primaryKey)) this.primary = null;
    }
  }

  /** Returns the interval's event (undefined if no task finished) and starts a new interval. */
  drain(now: number): TasksEvent | undefined {
    if (this.completed + this.failed === 0) {
      this.start = now;
      return undefined;
    }
    const levels: TasksEvent['levels'] = {};
    for (let i = 0; i < 5; i++) if (this.levels[i]) levels[String(i) as '0'] = this.levels[i]!;
    const ev: TasksEvent = {
      type: 'tasks',
      start: this.start,
      end: now,
      operation: this.operation,
      completed: this.completed,
      failed: this.failed,
      degraded: this.degraded,
      attempts: this.attempts,
      cost_usd: round6(this.costUsd),
      levels,
      fallback: { invoked: this.invoked, failed: this.fbFailed },
      ...(this.primary ? { key: this.primary } : {}),
    };
    this.primary = undefined;
    this.completed = this.failed = this.degraded = this.attempts = this.costUsd = this.invoked = this.fbFailed = 0;
    this.levels.fill(0);
    this.start = now;
    return ev;
  }
}

/**
 * Cost budget: per-request, hourly and daily spending ceilings. A request whose estimate
 * would cross one is refused before anything is sent, with `BB_ERR_SDK_BUDGET_EXCEEDED`
 * (class `quota`: our own spend limit). Actual costs of every attempt, failed ones too,
 * are added as they are known.
 */
import type { Clock } from '../clock.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { Counter, RollingWindow } from './rolling-window.ts';

/** Ceilings in USD; unset means unlimited. */
export interface CostBudgetOptions {
  perRequestUsd?: number;
  hourlyUsd?: number;
  dailyUsd?: number;
}

/** Spending ceilings over rolling hours and days. */
export class CostBudget {
  private readonly hour = new RollingWindow(3_600_000, 60);
  private readonly day = new RollingWindow(86_400_000, 24);

  constructor(
    readonly options: Readonly<CostBudgetOptions>,
    private readonly clock: Clock,
  ) {}

  /** True when at least one ceiling is set. */
  get active(): boolean {
    const o = this.options;
    return o.perRequestUsd !== undefined || o.hourlyUsd !== undefined || o.dailyUsd !== undefined;
  }

  /** Throws `BB_ERR_SDK_BUDGET_EXCEEDED` when a request estimated at `estimateUsd` would cross a ceiling. */
  check(estimateUsd: number, what: string, now = this.clock.now()): void {
    const o = this.options;
    if (o.perRequestUsd !== undefined && estimateUsd > o.perRequestUsd) {
      throw over(`${what}: estimated $${estimateUsd.toFixed(4)} exceeds the per-request ceiling of $${o.perRequestUsd}`);
    }
    const h = this.hour.total(now, Counter.Calls);
    if (o.hourlyUsd !== undefined && h + estimateUsd > o.hourlyUsd) {
      throw over(`${what}: $${h.toFixed(4)} spent in the last hour; the estimated $${estimateUsd.toFixed(4)} would exceed the hourly ceiling of $${o.hourlyUsd}`);
    }
    const d = this.day.total(now, Counter.Calls);
    if (o.dailyUsd !== undefined && d + estimateUsd > o.dailyUsd) {
      throw over(`${what}: $${d.toFixed(4)} spent in the last day; the estimated $${estimateUsd.toFixed(4)} would exceed the daily ceiling of $${o.dailyUsd}`);
    }
  }

  /** Adds a known cost. */
  record(costUsd: number, now = this.clock.now()): void {
    if (costUsd <= 0) return;
    this.hour.add(now, Counter.Calls, costUsd);
    this.day.add(now, Counter.Calls, costUsd);
  }

  /** Spent over the last hour and day, USD. */
  spent(now = this.clock.now()): { hourUsd: number; dayUsd: number } {
    return { hourUsd: this.hour.total(now, Counter.Calls), dayUsd: this.day.total(now, Counter.Calls) };
  }
}

function over(message: string): BreakerboxError {
  return new BreakerboxError(SDK_ERROR_CODES.BUDGET_EXCEEDED, message, { errorClass: 'quota' });
}

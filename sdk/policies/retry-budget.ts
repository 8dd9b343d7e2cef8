/**
 * A process-wide retry budget: retries may be at most `ratio` of the requests seen over a
 * rolling window, plus a small floor, so a failing dependency cannot turn every caller
 * into a retry storm. Shared by every key of a registry.
 */
import type { Clock } from '../clock.ts';
import { Counter, RollingWindow } from './rolling-window.ts';

/** Retry budget settings. */
export interface RetryBudgetOptions {
  /** Window the ratio is computed over, ms. */
  windowMs: number;
  /** Retries allowed per request (0.1: one retry per ten requests). */
  ratio: number;
  /** Retries always allowed per window, whatever the request count. */
  minRetries: number;
}

/** The defaults: 10% over 10 s, plus 10 retries per window. */
export const DEFAULT_RETRY_BUDGET_OPTIONS: Readonly<RetryBudgetOptions> = Object.freeze({ windowMs: 10_000, ratio: 0.1, minRetries: 10 });

// The budget reuses the breaker's rolling window: requests in one counter, retries in another.
const REQUESTS = Counter.Calls;
const RETRIES = Counter.Errors;

/** Retries allowed per request, process-wide. */
export class RetryBudget {
  private readonly window: RollingWindow;

  constructor(
    readonly options: Readonly<RetryBudgetOptions>,
    private readonly clock: Clock,
  ) {
    this.window = new RollingWindow(options.windowMs, 10);
  }

  /** Counts one first attempt. */
  recordRequest(now: number): void {
    this.window.add(now, REQUESTS);
  }

  /** Takes one retry from the budget; false when it is spent. */
  tryWithdraw(now = this.clock.now()): boolean {
    const allowed = this.options.minRetries + this.options.ratio * this.window.total(now, REQUESTS);
    if (this.window.total(now, RETRIES) + 1 > allowed) return false;
    this.window.add(now, RETRIES);
    return true;
  }
}

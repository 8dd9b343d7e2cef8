/**
 * Retry decisions: which failures may be sent again, and after how long. Exponential
 * backoff with full jitter; a provider's `retry-after` is honoured when it fits the
 * remaining deadline (and replaces the backoff); nothing is retried past the attempt cap,
 * while the key's breaker is not closed, beyond the process-wide budget, or for a request
 * marked non-idempotent without an idempotency key.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import { isRetryable } from '@breakerbox/protocol';

/** Retry settings. */
export interface RetryOptions {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Backoff base, ms (attempt n waits up to base × 2^(n−1), full jitter). */
  baseDelayMs: number;
  /** Backoff ceiling, ms. */
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for (the chain fails over instead), ms. */
  maxRetryAfterMs: number;
  /**
   * Retry `timeout` failures on the same key. Off by default: a route that stayed silent
   * until the timeout is failed over, not asked again.
   */
  retryTimeouts: boolean;
}

/** The defaults: 3 attempts, 200 ms base, 5 s cap, retry-after up to 30 s. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
  retryTimeouts: false,
});

/** Why a failure was not retried (for logs and tests), or `retry` with the delay. */
export type RetryDecision =
  | { retry: true; delayMs: number; honouredRetryAfter: boolean }
  | { retry: false; reason: 'not_retryable' | 'attempts' | 'breaker_open' | 'budget' | 'deadline' | 'retry_after_too_long' | 'not_idempotent' };

/** Facts a retry decision is made on. */
export interface RetryFacts {
  cls: ErrorClass;
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  retryAfterMs: number | undefined;
  /** Milliseconds left before the caller's deadline (Infinity without one). */
  remainingMs: number;
  breakerClosed: boolean;
  idempotent: boolean;
  /** Takes one retry from the budget; called last, only when everything else allows a retry. */
  withdraw: () => boolean;
}

/** Full-jitter exponential backoff for the given attempt (1-based count of attempts made). */
export function backoffDelay(o: Readonly<RetryOptions>, attempt: number, random: () => number): number {
  return Math.floor(random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1)));
}

/** Decides whether to retry a failure, and after how long. */
export function decideRetry(o: Readonly<RetryOptions>, f: RetryFacts, random: () => number): RetryDecision {
  if (!isRetryable(f.cls) || (f.cls === 'timeout' && !o.retryTimeouts)) return { retry: false, reason: 'not_retryable' };
  if (f.attempt >= o.maxAttempts) return { retry: false, reason: 'attempts' };
  if (!f.idempotent) return { retry: false, reason: 'not_idempotent' };
  if (!f.breakerClosed) return { retry: false, reason: 'breaker_open' };
  let delayMs: number;
  let honoured = false;
  if (f.retryAfterMs !== undefined) {
    if (f.retryAfterMs > o.maxRetryAfterMs) return { retry: false, reason: 'retry_after_too_long' };
    delayMs = f.retryAfterMs;
    honoured = true;
  } else {
    delayMs = backoffDelay(o, f.attempt, random);
  }
  if (delayMs >= f.remainingMs) return { retry: false, reason: honoured ? 'retry_after_too_long' : 'deadline' };
  if (!f.withdraw()) return { retry: false, reason: 'budget' };
  return { retry: true, delayMs, honouredRetryAfter: honoured };
}

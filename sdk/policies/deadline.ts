/**
 * The total deadline of a call: one timer and one AbortSignal for all of its attempts,
 * linked to the caller's own signal. Only built when a deadline is set, so calls
 * without one pay nothing.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';

/** A deadline `ms` from now; aborts `signal` with a `BB_ERR_SDK_TIMEOUT` error (class timeout) when it passes. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: TimerHandle;
  private readonly at: number;
  private readonly unlink: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    ms: number,
    parent?: AbortSignal,
    phase = 'total',
  ) {
    this.at = clock.now() + ms;
    this.timer = clock.setTimeout(() => {
      this.controller.abort(new BreakerboxError(SDK_ERROR_CODES.TIMEOUT, `${phase} timeout of ${ms} ms elapsed`, { errorClass: 'timeout', providerReason: phase }));
    }, ms);
    if (parent) {
      if (parent.aborted) this.controller.abort(parent.reason);
      const onAbort = () => this.controller.abort(parent.reason);
      parent.addEventListener('abort', onAbort, { once: true });
      this.unlink = () => parent.removeEventListener('abort', onAbort);
    }
  }

  /** Aborted when the deadline passes or the parent aborts. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left (0 once passed). */
  remaining(): number {
    return Math.max(0, this.at - this.clock.now());
  }

  /** Settles like `p`, or rejects with the abort reason as soon as the signal aborts. */
  race<T>(p: Promise<T>): Promise<T> {
    return raceSignal(p, this.controller.signal);
  }

  /** Clears the timer and the link to the parent. */
  dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.unlink?.();
  }
}

/** Settles like `p`, or rejects with `signal.reason` as soon as `signal` aborts. */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

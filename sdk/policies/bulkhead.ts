/**
 * Bulkhead: a hard cap on concurrent in-flight calls for one key. Beyond the cap a call
 * is refused at once, unless a bounded queue (default 0) has room, in which case it waits
 * for a slot (and gives up when its signal aborts).
 */

/** Bulkhead settings. */
export interface BulkheadOptions {
  /** Calls in flight at most. */
  maxConcurrent: number;
  /** Callers that may wait for a slot (0: refuse at once). */
  maxQueue: number;
}

/** The defaults. */
export const DEFAULT_BULKHEAD_OPTIONS: Readonly<BulkheadOptions> = Object.freeze({ maxConcurrent: 100, maxQueue: 0 });

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** A concurrency cap with an optional bounded queue. */
export class Bulkhead {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly options: Readonly<BulkheadOptions>) {}

  /** Calls in flight. */
  get inFlight(): number {
    return this.active;
  }

  /** Callers waiting in the queue. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Takes a slot if one is free; never waits. */
  tryAcquire(): boolean {
    if (this.active >= this.options.maxConcurrent) return false;
    this.active++;
    return true;
  }

  /** True when a caller could wait in the queue right now. */
  canQueue(): boolean {
    return this.waiting.length < this.options.maxQueue;
  }

  /** Waits in the queue for a slot (call only when `canQueue()`). Rejects with the signal's reason on abort. */
  waitForSlot(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = this.waiting.indexOf(w);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.waiting.push(w);
    });
  }

  /** Gives a slot back, handing it straight to the first waiter if there is one. */
  release(): void {
    const next = this.waiting.length === 0 ? undefined : this.waiting.shift();
    if (next) {
      if (next.onAbort) next.signal!.removeEventListener('abort', next.onAbort);
      next.resolve(); // the slot passes over without ever being free
      return;
    }
    if (this.active > 0) this.active--;
  }
}

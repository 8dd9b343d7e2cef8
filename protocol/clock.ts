/**
 * Time as breakerbox sees it. Every SDK policy, the telemetry sender, the prober and the
 * collector take a `Clock`, so tests can drive time by hand and nothing reads the wall
 * clock behind their back.
 */

/** An opaque timer handle, as returned by `Clock.setTimeout`. */
export type TimerHandle = unknown;

/** The one clock interface: policies, the sender, the collector. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` after `ms`. `background` timers must not keep the process alive. */
  setTimeout(fn: () => void, ms: number, background?: boolean): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now` and Node timers (background ones are `unref`'d). */
export const systemClock: Clock = {
  // Read through a call, so a replaced global Date (test fake timers) is seen too.
  now: () => Date.now(),
  setTimeout(fn, ms, background) {
    const t = setTimeout(fn, ms);
    if (background) t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason if it aborts first.
 * `background`: the timer does not keep the process alive.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal | null, background = false): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason as Error);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms, background);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

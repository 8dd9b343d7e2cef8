/**
 * The collector's one source of time. Everything in `server/` that asks "what time is it"
 * asks this clock, so tests and the demo can compress time instead of waiting for it.
 */

import { systemClock as protocolClock, type Clock } from '@breakerbox/protocol';

/** The part of the one `Clock` interface the collector reads: the time (its timers stay on the event loop). */
export type ServerClock = Pick<Clock, 'now'>;

/** The wall clock: the protocol package's. */
export const systemClock: ServerClock = protocolClock;

/**
 * A clock that runs `factor` times faster than the wall clock from `origin` (default: now),
 * starting at `start` (default: `origin`): a 6-minute scenario runs in 6 / factor minutes.
 */
export function scaledClock(factor: number, options: { origin?: number; start?: number } = {}): ServerClock {
  if (!(factor > 0)) throw new RangeError('the clock factor must be positive');
  const origin = options.origin ?? Date.now();
  const start = options.start ?? origin;
  return { now: () => Math.floor(start + (Date.now() - origin) * factor) };
}

/** A clock that moves only when told to (tests). */
export interface ManualServerClock extends ServerClock {
  set(ms: number): void;
  advance(ms: number): void;
}

/** Creates a hand-driven clock starting at `start`. */
export function manualClock(start: number): ManualServerClock {
  let t = start;
  return {
    now: () => t,
    set(ms) {
      t = ms;
    },
    advance(ms) {
      t += ms;
    },
  };
}

/**
 * Drains interval aggregates (key windows, operation tasks) into telemetry events: the one
 * loop the instance's real stats and a drill run's stats share.
 */
import type { TelemetryEvent } from '@breakerbox/protocol';

/** Anything that hands over its interval's event (or nothing, when it saw no traffic) and starts a new one. */
export interface Drainable {
  drain(now: number): TelemetryEvent | undefined;
}

/** Appends each source's event for the interval ending at `now` to `out` (returned). */
export function drainEvents(sources: Iterable<Drainable>, now: number, out: TelemetryEvent[] = []): TelemetryEvent[] {
  for (const s of sources) {
    const e = s.drain(now);
    if (e) out.push(e);
  }
  return out;
}

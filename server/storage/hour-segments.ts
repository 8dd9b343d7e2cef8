/**
 * How a span of minutes is split between the hourly and the per-minute rollup tables. Pure
 * arithmetic on times, shared by both engines; each finds its stale hours its own way.
 */
const MINUTE = 60_000;
/** One hour, ms: the span of a `*_hours` row. */
export const HOUR = 3_600_000;
/** An hour is aggregated once it ended this long ago; the late-write triggers fire from 5 minutes. */
export const SEAL_MS = 10 * MINUTE;

/** A piece of a minute span, read either from the hourly or the per-minute tables. */
export interface Segment {
  table: 'hours' | 'minutes';
  /** Inclusive start minute (ms). */
  from: number;
  /** Exclusive end (ms). */
  to: number;
}

/** The start of the hour `ms` falls in. */
export const floorHour = (ms: number): number => ms - (ms % HOUR);
/** The end of the last hour that may be aggregated at `now`. */
export const lastSealedEnd = (now: number): number => floorHour(now - SEAL_MS);

/** The whole sealed hours inside the minutes `[first, end)`: `[hoursFrom, hoursTo)` (empty when shorter than an hour). */
export function sealedHours(first: number, end: number, now: number): { hoursFrom: number; hoursTo: number } {
  const stop = Math.floor((end - 1) / MINUTE) * MINUTE + MINUTE;
  return { hoursFrom: Math.ceil(first / HOUR) * HOUR, hoursTo: Math.min(floorHour(stop), lastSealedEnd(now)) };
}

/**
 * Splits the minutes `[first, end)` (`first` on a minute) into segments: the sealed hours
 * not in `stale` from the hourly tables, everything else from the minutes. Both engines plan
 * with it; each finds its stale hours (built version older than the data) its own way.
 */
export function spanSegments(first: number, end: number, now: number, stale: ReadonlySet<number>): Segment[] {
  const stop = Math.floor((end - 1) / MINUTE) * MINUTE + MINUTE;
  const { hoursFrom, hoursTo } = sealedHours(first, end, now);
  if (hoursTo - hoursFrom < HOUR) return [{ table: 'minutes', from: first, to: stop }];
  const segments: Segment[] = [];
  const push = (table: Segment['table'], from: number, to: number) => {
    if (to <= from) return;
    const last = segments[segments.length - 1];
    if (last && last.table === table && last.to === from) last.to = to;
    else segments.push({ table, from, to });
  };
  push('minutes', first, hoursFrom);
  for (let h = hoursFrom; h < hoursTo; h += HOUR) push(stale.has(h) ? 'minutes' : 'hours', h, h + HOUR);
  push('minutes', hoursTo, stop);
  return segments;
}

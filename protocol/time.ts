/** One minute in milliseconds: the rollups' resolution. */
export const MINUTE_MS = 60_000;

/** Floors a time (ms since the epoch) to the start of its minute: the rollups' bucket. */
export const minuteOf = (ms: number): number => ms - (ms % MINUTE_MS);

const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The instant a shutdown date means, in ms since the epoch: a bare day is its 00:00 UTC (the
 * providers publish days, and a request on that day may already fail); an instant is itself.
 * Null for a date that does not exist (2026-02-30), so the config check can name the entry.
 */
export function shutdownAt(date: string): number | null {
  const day = DAY_ONLY.exec(date);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const at = Date.UTC(y, m - 1, d);
    // Date.UTC rolls 2026-02-30 over to March: a day that round-trips is a real one.
    const back = new Date(at);
    return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d ? at : null;
  }
  const at = Date.parse(date);
  return Number.isFinite(at) ? at : null;
}

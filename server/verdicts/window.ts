import { BreakerboxError } from '../errors.ts';
import { minuteOf } from '@breakerbox/protocol';
import type { TimeRange, WindowQuery } from '../schemas/common.ts';

// The window parameters and the resolved range are the read API's (server/schemas/common.ts).
export type { TimeRange, WindowQuery } from '../schemas/common.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Named windows the read API accepts, in ms. */
export const NAMED_WINDOWS: Record<string, number> = {
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '1h': HOUR,
  '6h': 6 * HOUR,
  '24h': 24 * HOUR,
  '7d': 7 * 24 * HOUR,
};

/** Floors a time to its minute: the rollups' own `minuteOf`, so both sides agree on minute boundaries. */
export const floorMinute = minuteOf;

function asMillis(value: number | string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new BreakerboxError('BB_ERR_QUERY_INVALID', `${name} must be a time in ms since the epoch`, { path: `/querystring/${name}` });
  }
  return n;
}

/**
 * Resolves `window` (a named span ending at `to` or now) or `from`/`to` into a range.
 * `maxSpanMs` caps the span (the rollup retention) so a query cannot ask for years.
 */
export function parseWindow(query: WindowQuery, now: number, options: { defaultWindow: string; maxSpanMs: number }): TimeRange {
  const to = asMillis(query.to, 'to') ?? now;
  const fromParam = asMillis(query.from, 'from');
  let from: number;
  if (fromParam !== undefined) {
    if (query.window !== undefined && query.window !== '') {
      throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'give either window or from/to, not both', { path: '/querystring/window' });
    }
    from = fromParam;
  } else {
    const name = query.window === undefined || query.window === '' ? options.defaultWindow : query.window;
    const span = NAMED_WINDOWS[name];
    if (span === undefined) {
      throw new BreakerboxError('BB_ERR_QUERY_INVALID', `window must be one of ${Object.keys(NAMED_WINDOWS).join(', ')}`, {
        path: '/querystring/window',
      });
    }
    from = to - span;
  }
  if (from >= to) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'from must be before to', { path: '/querystring/from' });
  if (to - from > options.maxSpanMs) {
    throw new BreakerboxError('BB_ERR_QUERY_INVALID', `the window spans more than ${Math.round(options.maxSpanMs / 86_400_000)} days`, {
      path: '/querystring/from',
    });
  }
  return { from, to };
}

/**
 * The series step: a given multiple of a minute, else 1 min up to 6 h, 5 min up to 24 h,
 * 1 h beyond. At most 2,000 points are allowed so a series stays drawable.
 */
export function parseStep(step: number | string | undefined, range: TimeRange): number {
  const span = range.to - range.from;
  const given = asMillis(step, 'step');
  const chosen = given ?? (span <= 6 * HOUR ? MINUTE : span <= 24 * HOUR ? 5 * MINUTE : HOUR);
  if (chosen <= 0 || chosen % MINUTE !== 0) {
    throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'step must be a positive multiple of 60000 ms', { path: '/querystring/step' });
  }
  if (span / chosen > 2000) {
    throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'step is too small for this window (over 2,000 points)', { path: '/querystring/step' });
  }
  return chosen;
}

/** The minutes a range covers: every minute that overlaps `[from, to)`. */
export function minuteSpan(range: TimeRange): { first: number; end: number } {
  return { first: floorMinute(range.from), end: range.to };
}

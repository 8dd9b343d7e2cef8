/**
 * A provider's own deprecation signal on an HTTP answer (issue 28): RFC 9745 `Deprecation`
 * (a structured-field date, `@<seconds since the epoch>`: when the resource is or was
 * deprecated) and RFC 8594 `Sunset` (an HTTP-date: when it stops answering). Read from any
 * answer, success or failure; a header that does not parse is no signal (never an error):
 * senders put all sorts of things in headers.
 */

/** What one answer's headers say; each date in ms since the epoch. */
export interface DeprecationSignal {
  deprecationAt?: number;
  sunsetAt?: number;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MON = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** RFC 9110 §5.6.7: IMF-fixdate, and the two obsolete forms a recipient must accept. */
const IMF = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MON} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);
/** Longest header value looked at: a date is about 30 characters. */
const MAX_VALUE = 64;

/** The instant of a valid calendar date and time (UTC), or undefined (Feb 30, 25:00, …). */
function utc(year: number, month: number, day: number, h: number, m: number, s: number): number | undefined {
  const t = Date.UTC(year, month, day, h, m, s);
  const d = new Date(t);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day && h < 24 && m < 60 && s < 61 ? t : undefined;
}

/** An HTTP-date (RFC 9110: IMF-fixdate, RFC 850 or asctime form) in ms, or undefined. */
export function parseHttpDate(value: string): number | undefined {
  const v = value.trim();
  if (v.length > MAX_VALUE) return undefined;
  let m = IMF.exec(v);
  if (m) return utc(Number(m[4]), MONTHS.indexOf(m[3]!), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  m = RFC850.exec(v);
  if (m) {
    // A two-digit year: 70–99 in the past century (RFC 9110 reads it against the current year;
    // a fixed pivot keeps parsing off the clock, and sunsets before 1970 do not occur).
    const yy = Number(m[4]);
    const year = yy >= 70 ? 1900 + yy : 2000 + yy;
    return utc(year, MONTHS.indexOf(m[3]!), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  }
  m = ASCTIME.exec(v);
  if (m) return utc(Number(m[7]), MONTHS.indexOf(m[2]!), Number(m[3]!.trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  return undefined;
}

/** An RFC 9745 `Deprecation` value (`@<integer seconds>`, RFC 9651 Date) in ms, or undefined. */
export function parseDeprecation(value: string): number | undefined {
  const v = value.trim();
  // RFC 9651 Date: an Integer (at most 15 digits) after `@`; parameters (`;…`) are allowed and ignored.
  const m = /^@(-?\d{1,15})(;.*)?$/.exec(v);
  if (!m) return undefined;
  const ms = Number(m[1]) * 1000;
  return ms >= 0 && ms <= 8.64e15 ? ms : undefined;
}

/** The signal among an answer's headers, or undefined when it carries none that parses. */
export function deprecationSignalOf(headers: { get(name: string): string | null } | undefined): DeprecationSignal | undefined {
  if (!headers) return undefined;
  const dep = headers.get('deprecation');
  const sun = headers.get('sunset');
  if (dep === null && sun === null) return undefined;
  const out: DeprecationSignal = {};
  const d = dep === null ? undefined : parseDeprecation(dep);
  const s = sun === null ? undefined : parseHttpDate(sun);
  if (d !== undefined) out.deprecationAt = d;
  if (s !== undefined) out.sunsetAt = s;
  return d === undefined && s === undefined ? undefined : out;
}

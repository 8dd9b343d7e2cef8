import type { ErrorClass } from '../../sdk/protocol.ts';
import { ERROR_CLASSES } from '../storage/rollups.ts';
import { ROLLUP_BUCKETS } from '../storage/histogram.ts';

const hCols = (prefix: string) => Array.from({ length: ROLLUP_BUCKETS }, (_, i) => `${prefix}${i}`);

/** The summed columns of `key_minutes` / `key_hours`, in the order of a KeySums array. */
export const KEY_COLUMNS: readonly string[] = [
  'calls', 'ok', 'slow', ...ERROR_CLASSES.map((c) => `e_${c}`), 'rejected', 'short_circuited', 'retries',
  'cold_excluded', 'half_open_ok', 'half_open_failed', 'input_tokens', 'output_tokens', 'cost_usd',
  'windows', 'transitions', 'opens', ...hCols('h'), ...hCols('t'),
];

/** The summed columns of `probe_minutes` / `probe_hours`. */
export const PROBE_COLUMNS: readonly string[] = [
  'probes', 'ok', 'slow', 'error', 'misconfigured', 'cold', 'total_ms_sum', 'cost_usd', ...hCols('h'),
];

const indexOf = (cols: readonly string[]) => (name: string): number => {
  const i = cols.indexOf(name);
  if (i < 0) throw new Error(`no column ${name}`);
  return i;
};
const k = indexOf(KEY_COLUMNS);
const p = indexOf(PROBE_COLUMNS);

/** Positions in a KeySums array. */
export const K = {
  calls: k('calls'), ok: k('ok'), slow: k('slow'), errors: k('e_rate_limit'), rejected: k('rejected'),
  shortCircuited: k('short_circuited'), retries: k('retries'), halfOpenOk: k('half_open_ok'),
  halfOpenFailed: k('half_open_failed'), inputTokens: k('input_tokens'), outputTokens: k('output_tokens'),
  cost: k('cost_usd'), transitions: k('transitions'), opens: k('opens'), latency: k('h0'), ttft: k('t0'),
} as const;

/** Positions in a ProbeSums array. */
export const P = {
  probes: p('probes'), ok: p('ok'), slow: p('slow'), error: p('error'), misconfigured: p('misconfigured'),
  cold: p('cold'), totalMs: p('total_ms_sum'), cost: p('cost_usd'), latency: p('h0'),
} as const;

/** Summed key counters; index with `K`. */
export type KeySums = Float64Array;
/** Summed probe counters; index with `P`. */
export type ProbeSums = Float64Array;

export const newKeySums = (): KeySums => new Float64Array(KEY_COLUMNS.length);
export const newProbeSums = (): ProbeSums => new Float64Array(PROBE_COLUMNS.length);

/** Adds `b` into `a` (same layout). */
export function addInto(a: Float64Array, b: ArrayLike<number>, offset = 0): void {
  for (let i = 0; i < a.length; i++) a[i]! += b[offset + i]!;
}

/** The errors of a KeySums array by class. */
export function errorsOf(sums: KeySums): Record<ErrorClass, number> {
  const out = {} as Record<ErrorClass, number>;
  ERROR_CLASSES.forEach((c, i) => {
    out[c] = sums[K.errors + i]!;
  });
  return out;
}

/** Classes that count against the provider (DESIGN.md taxonomy). */
export const PROVIDER_CLASSES: readonly ErrorClass[] = ['rate_limit', 'server', 'network', 'timeout', 'stream_broken'];
/** Classes that are our own doing: account, request, content. */
export const CLIENT_CLASSES: readonly ErrorClass[] = ['quota', 'bad_request', 'auth', 'context_length', 'policy', 'truncated'];

/** Histogram slice of a sums array as a plain array. */
export function histogramOf(sums: Float64Array, start: number): number[] {
  return Array.from(sums.subarray(start, start + ROLLUP_BUCKETS));
}

/** `SUM(col), ...` for a column list, for GROUP BY queries. */
export const sumList = (cols: readonly string[]): string => cols.map((c) => `SUM(${c})`).join(', ');

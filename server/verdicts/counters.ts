import { ERROR_CLASSES, KEY_COLUMNS, PROBE_COLUMNS, ROLLUP_BUCKETS, type ErrorClass } from '@breakerbox/protocol';

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
  shortCircuited: k('short_circuited'), retries: k('retries'), coldExcluded: k('cold_excluded'), halfOpenOk: k('half_open_ok'),
  halfOpenFailed: k('half_open_failed'), inputTokens: k('input_tokens'), outputTokens: k('output_tokens'),
  cost: k('cost_usd'), transitions: k('transitions'), opens: k('opens'), latency: k('h0'), ttft: k('t0'),
} as const;

/** Positions in a ProbeSums array. */
export const P = {
  probes: p('probes'), ok: p('ok'), slow: p('slow'), error: p('error'), misconfigured: p('misconfigured'),
  cold: p('cold'), totalMs: p('total_ms_sum'), cost: p('cost_usd'), latency: p('h0'), wrongAnswer: p('wrong_answer'),
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


/** Histogram slice of a sums array as a plain array. */
export function histogramOf(sums: Float64Array, start: number): number[] {
  return Array.from(sums.subarray(start, start + ROLLUP_BUCKETS));
}


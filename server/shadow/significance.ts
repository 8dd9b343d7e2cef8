/**
 * The statistics of the shadow comparison, stated so the dashboard can say them plainly:
 * shares get a Wilson 95 % interval and are compared with a two-proportion z-test (pooled,
 * two-sided, |z| >= 1.96); percentiles are only reported from a minimum number of answers.
 */

/** z of a two-sided 95 % test / interval. */
export const Z95 = 1.959964;

/** Fewest answers per side before a share difference is tested. */
export const MIN_ANSWERS_FOR_TEST = 20;
/** Fewest answers a side needs before its p50 / p95 is reported. */
export const MIN_ANSWERS_P50 = 20;
export const MIN_ANSWERS_P95 = 100;

/** The methods, in words (the API's `method`). */
export const METHOD_STATEMENT =
  `Shares: Wilson 95 % intervals; a difference is significant when a two-proportion z-test (pooled, two-sided) gives |z| >= 1.96, ` +
  `tested only with at least ${MIN_ANSWERS_FOR_TEST} answers per side. Percentiles from the merged latency histograms ` +
  `(interpolated within buckets): p50 from ${MIN_ANSWERS_P50} answers per side, p95 from ${MIN_ANSWERS_P95}; latency and cost are not tested.`;

/** Wilson score interval of `k` successes in `n` at 95 %. */
export function wilson(k: number, n: number): { value: number; n: number; low: number; high: number } {
  if (n <= 0) return { value: 0, n: 0, low: 0, high: 1 };
  const p = k / n;
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { value: p, n, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Two-proportion z statistic (pooled) of k1/n1 against k2/n2; null when either side is below
 * `MIN_ANSWERS_FOR_TEST`. 0 when both shares are 0 or both 1 (nothing differs).
 */
export function twoProportionZ(k1: number, n1: number, k2: number, n2: number): number | null {
  if (n1 < MIN_ANSWERS_FOR_TEST || n2 < MIN_ANSWERS_FOR_TEST) return null;
  const pooled = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return 0;
  return (k2 / n2 - k1 / n1) / se;
}

/**
 * The statistics behind `regional` (server/verdicts/location-split.ts): Fisher's exact test
 * against values known by hand and from R / SciPy, its false-alarm rate computed exactly,
 * and the three answers a split can get.
 */
import { describe, expect, it } from 'vitest';
import { fisherExact, locationSplit, pText, restsOn } from '../../server/verdicts/location-split.ts';
import type { ProbeFigures } from '../../server/verdicts/types.ts';

/** A location's figures with `failed` of `probes` recent probes failed (the rest of the window alike). */
function location(probes: number, failed: number, status: ProbeFigures['status']): ProbeFigures {
  return {
    probes, ok: probes - failed, slow: 0, error: failed, wrong_answer: 0, misconfigured: 0, cold: 0,
    success_share: probes ? (probes - failed) / probes : null, slow_share: probes ? 0 : null,
    latency_ms: { p50: 300, p95: 900, mean: 400 },
    recent: { probes, failed }, status, last_ts: 0, set_aside: false,
  };
}

/** C(n, k). */
const choose = (n: number, k: number): number => (k === 0 ? 1 : (choose(n - 1, k - 1) * n) / k);
/** Binomial probability of k of n at rate q. */
const binomial = (n: number, k: number, q: number) => choose(n, k) * q ** k * (1 - q) ** (n - k);

describe("Fisher's exact test (two-sided)", () => {
  it("gives Fisher's tea-tasting value: 3 of 4 against 1 of 4 is 34/70", () => {
    expect(fisherExact(3, 4, 1, 4)).toBeCloseTo(34 / 70, 12);
  });

  it('gives the extreme splits their hand-computed values: 10/10 against 0/10 is 2/C(20,10), 3/3 against 0/3 is 2/20', () => {
    expect(fisherExact(10, 10, 0, 10)).toBeCloseTo(2 / 184_756, 15);
    expect(fisherExact(3, 3, 0, 3)).toBeCloseTo(0.1, 12);
    expect(fisherExact(3, 3, 0, 10)).toBeCloseTo(1 / 286, 12);
  });

  it('matches R and SciPy on the replayed tables (6/10 vs 4/10, 6/10 vs 9/20, 9/10 vs 1/20)', () => {
    expect(fisherExact(6, 10, 4, 10)).toBeCloseTo(0.6562817987, 9);
    expect(fisherExact(6, 10, 9, 20)).toBeCloseTo(0.6998500750, 9);
    expect(fisherExact(9, 10, 1, 20)).toBeCloseTo(6.68996171e-6, 13);
  });

  it('is symmetric in the groups and in failed / passed, and 1 for equal shares or an empty group', () => {
    expect(fisherExact(2, 9, 7, 11)).toBeCloseTo(fisherExact(7, 11, 2, 9), 12);
    expect(fisherExact(2, 9, 7, 11)).toBeCloseTo(fisherExact(7, 9, 4, 11), 12);
    expect(fisherExact(5, 10, 5, 10)).toBe(1);
    expect(fisherExact(3, 3, 0, 0)).toBe(1);
  });

  it('holds its false-alarm rate: two locations of 10 probes failing 50% alike are called apart at p ≤ 0.01 with chance 0.26% (≤ 1%)', () => {
    let alarm = 0;
    for (let a = 0; a <= 10; a++) for (let b = 0; b <= 10; b++) if (fisherExact(a, 10, b, 10) <= 0.01) alarm += binomial(10, a, 0.5) * binomial(10, b, 0.5);
    expect(alarm).toBeLessThanOrEqual(0.01);
    expect(alarm).toBeCloseTo(0.0025768, 6);
  });

  it('prints p-values as the evidence does', () => {
    expect([pText(0.6562), pText(0.1), pText(6.69e-6)]).toEqual(['p = 0.66', 'p = 0.1', 'p = 6.7e-6']);
  });
});

/** The default thresholds (verdicts config). */
const T = { min_probes: 3, probe_failing_share: 0.5, probe_split_max_p: 0.01 };

describe('locationSplit', () => {
  it('calls 10 of 10 failed against 0 of 10 regional', () => {
    const s = locationSplit({ a: location(10, 10, 'failing'), b: location(10, 0, 'ok') }, ['a'], ['b'], T);
    expect(s).toMatchObject({ kind: 'regional', failing: { locations: ['a'], probes: 10, failed: 10, latest: [] }, ok: { locations: ['b'], probes: 10, failed: 0 } });
  });

  it('calls 6 of 10 against 4 of 10 chance: the counts could have shown a split and did not', () => {
    const s = locationSplit({ a: location(10, 6, 'failing'), b: location(10, 4, 'ok') }, ['a'], ['b'], T);
    expect(s).toMatchObject({ kind: 'chance', p: 0.656, p_min: 1.08e-5 });
  });

  it('pools the ok locations: 6 of 10 against 4 and 5 of 10 is chance', () => {
    const s = locationSplit({ a: location(10, 6, 'failing'), b: location(10, 4, 'ok'), c: location(10, 5, 'ok') }, ['a'], ['b', 'c'], T);
    expect(s).toMatchObject({ kind: 'chance', ok: { locations: ['b', 'c'], probes: 20, failed: 9 } });
  });

  it('calls 3 of 3 against 0 of 3 too few at 0.01 (the most extreme split at these counts is p = 0.1), and 5 against 5 enough', () => {
    expect(locationSplit({ a: location(3, 3, 'failing'), b: location(3, 0, 'ok') }, ['a'], ['b'], T).kind).toBe('too_few');
    expect(locationSplit({ a: location(5, 5, 'failing'), b: location(5, 0, 'ok') }, ['a'], ['b'], T).kind).toBe('regional');
  });

  it('follows the configured significance: 6 of 10 against 0 of 10 (p = 0.011) is regional at 0.05, chance at 0.01', () => {
    const probes = { a: location(10, 6, 'failing'), b: location(10, 0, 'ok') };
    expect(locationSplit(probes, ['a'], ['b'], { ...T, probe_split_max_p: 0.05 }).kind).toBe('regional');
    expect(locationSplit(probes, ['a'], ['b'], T).kind).toBe('chance');
  });

  it('counts a location whose status its latest probes set on those: an outage begun 3 probes ago (3 of 10) against 0 of 10 is regional', () => {
    const a = location(10, 3, 'failing');
    expect(restsOn(a, T)).toEqual({ probes: 3, failed: 3 });
    expect(restsOn(location(10, 6, 'ok'), T)).toEqual({ probes: 3, failed: 0 });
    expect(restsOn(location(10, 6, 'failing'), T)).toEqual({ probes: 10, failed: 6 });
    const s = locationSplit({ a, b: location(10, 0, 'ok') }, ['a'], ['b'], T);
    expect(s).toMatchObject({ kind: 'regional', p: 0.0035, failing: { probes: 3, failed: 3, latest: ['a'] } });
  });
});

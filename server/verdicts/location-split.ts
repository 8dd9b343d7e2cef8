/**
 * Whether probe locations really disagree: the test behind the `regional` hint.
 *
 * A location's status is a threshold on its own last ~10 probes (figures.ts), so a provider
 * failing half of all requests at random, everywhere, puts one location just above
 * `probe_failing_share` and another just below it a good part of the time: 6 of 10 failed
 * is "failing", 4 of 10 is "ok", and the key read `regional` — telling on-call to move
 * region when every region fails alike. Whether two shares of a handful of probes differ is
 * a question about chance, so it is answered with a test on the counts.
 *
 * The test: **Fisher's exact test**, two-sided, on the 2×2 table (failed / passed recent
 * probes) × (the locations whose status is failing, pooled / the locations whose status is
 * ok, pooled; each location counted on the probes its status rests on, `restsOn`). Why Fisher: the counts are small (3 to ~15 probes a location) where the
 * normal approximation of a two-proportion z-test is poor and a χ² test is invalid (expected
 * cells under 5); Fisher's test is exact at any count and conservative — at significance α
 * it declares a difference between locations that fail at the same rate in at most α of
 * cases (docs/alerts.md gives the figures). Two-sided, because which group is "failing" was
 * chosen by looking at the same counts. Pooled by status, because the claim the hint makes
 * is "failing from these, fine from those".
 *
 * Three answers:
 * - `regional`: the difference is beyond chance (p ≤ α, `verdicts.probe_split_max_p`);
 * - `chance`: it is not, and the counts were enough to show one (the most extreme split at
 *   these counts — every probe of the failing group failed, none of the other — would have
 *   had p ≤ α): the provider fails at random across locations, not in one region;
 * - `too_few`: even the most extreme split at these counts would not be beyond chance
 *   (3 probes against 3: p = 0.1), so the counts cannot tell a region from chance.
 */
import { list } from './text.ts';
import type { ProbeFigures } from './types.ts';

/** Some locations and the probes their statuses rest on, pooled. */
export interface SplitGroup {
  locations: string[];
  probes: number;
  failed: number;
  /** Locations counted on their latest probes only (`restsOn`). */
  latest: string[];
}

/** The outcome of comparing the failing locations with the ok ones. */
export interface LocationSplit {
  kind: 'regional' | 'chance' | 'too_few';
  /** The locations whose status is failing, and their recent probes pooled. */
  failing: SplitGroup;
  /** The locations whose status is ok, and their recent probes pooled. */
  ok: SplitGroup;
  /** Fisher's exact two-sided p-value of the observed table. */
  p: number;
  /** The p-value of the most extreme split these counts allow (all failed against none). */
  p_min: number;
  /** The significance the split is held to (`verdicts.probe_split_max_p`). */
  alpha: number;
}

/** ln(n!) for n = 0..max, by summation (the counts here are a few hundred at most). */
function logFactorials(max: number): Float64Array {
  const out = new Float64Array(max + 1);
  for (let i = 2; i <= max; i++) out[i] = out[i - 1]! + Math.log(i);
  return out;
}

/**
 * Fisher's exact test, two-sided: the probability, under the hypothesis that both groups
 * fail at the same rate (the margins fixed), of a table at most as probable as the one seen —
 * `x1` failed of `n1` in the first group, `x2` of `n2` in the second. Returns 1 for an empty group.
 */
export function fisherExact(x1: number, n1: number, x2: number, n2: number): number {
  if (n1 <= 0 || n2 <= 0) return 1;
  const n = n1 + n2;
  const k = x1 + x2;
  const lf = logFactorials(n);
  const logChoose = (a: number, b: number) => lf[a]! - lf[b]! - lf[a - b]!;
  const logDenominator = logChoose(n, n1);
  const logP = (x: number) => logChoose(k, x) + logChoose(n - k, n1 - x) - logDenominator;
  const observed = logP(x1);
  let p = 0;
  // Relative tolerance so that tables as probable as the observed one count despite rounding.
  const bound = observed + 1e-7;
  for (let x = Math.max(0, k - n2); x <= Math.min(k, n1); x++) {
    const lp = logP(x);
    if (lp <= bound) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/** The thresholds a location's status was judged with (figures.ts). */
export interface StatusRule {
  min_probes: number;
  probe_failing_share: number;
}

/**
 * The probes a location's status rests on. Mostly its recent probes; but a status set by the
 * latest `min_probes` alone (all failed while most of the recent passed: an outage that has
 * just begun there; all passed while most failed: one that is ending) rests on those, so a
 * region that began failing three minutes ago is compared on its three failed probes, not
 * diluted by the seven good ones before them. At least `min_probes` agreed; that many are
 * counted (a lower bound: the test is only more cautious for it).
 */
export function restsOn(f: ProbeFigures, t: StatusRule): { probes: number; failed: number } {
  const { probes, failed } = f.recent;
  const above = probes > 0 && failed / probes > t.probe_failing_share;
  if (f.status === 'failing' && !above && probes > t.min_probes) return { probes: t.min_probes, failed: t.min_probes };
  if (f.status === 'ok' && above && probes > t.min_probes) return { probes: t.min_probes, failed: 0 };
  return { probes, failed };
}

/** Sums the probes the statuses of some locations rest on. */
function pooled(probes: Record<string, ProbeFigures>, locations: string[], t: StatusRule): SplitGroup {
  let n = 0;
  let failed = 0;
  const latest: string[] = [];
  for (const l of locations) {
    const r = restsOn(probes[l]!, t);
    if (r.probes !== probes[l]!.recent.probes) latest.push(l);
    n += r.probes;
    failed += r.failed;
  }
  return { locations, probes: n, failed, latest };
}

/**
 * Compares the probes the failing locations' statuses rest on with the ok ones' (the
 * `partial` probe side) and says whether they differ beyond chance at `alpha`.
 */
export function locationSplit(probes: Record<string, ProbeFigures>, failing: string[], ok: string[], t: StatusRule & { probe_split_max_p: number }): LocationSplit {
  const alpha = t.probe_split_max_p;
  const f = pooled(probes, failing, t);
  const o = pooled(probes, ok, t);
  const p = fisherExact(f.failed, f.probes, o.failed, o.probes);
  const pMin = fisherExact(f.probes, f.probes, 0, o.probes);
  const kind = p <= alpha ? 'regional' : pMin <= alpha ? 'chance' : 'too_few';
  return { kind, failing: f, ok: o, p: Number(p.toPrecision(3)), p_min: Number(pMin.toPrecision(3)), alpha };
}

/** "p = 0.66" / "p = 1.1e-5": a p-value as the evidence shows it. */
export function pText(p: number): string {
  return `p = ${p >= 0.001 ? Number(p.toPrecision(2)) : p.toExponential(1)}`;
}

/** "6 of 10 recent failed from eu-west": a pooled group in words. */
const groupText = (g: SplitGroup) =>
  `${g.failed} of ${g.probes} recent failed from ${list(g.locations)}${g.latest.length ? ` (${list(g.latest)} on the latest probes, which set ${g.latest.length === 1 ? 'its' : 'their'} status)` : ''}`;

/** The sentence that states the test and its outcome, for the evidence. */
export function splitText(s: LocationSplit): string {
  const counts = `${groupText(s.failing)}, ${groupText(s.ok)}`;
  switch (s.kind) {
    case 'regional':
      return `probe locations differ beyond chance: ${counts} (Fisher's exact test ${pText(s.p)} ≤ ${s.alpha})`;
    case 'chance':
      return `probe locations do not differ beyond chance: ${counts} (Fisher's exact test ${pText(s.p)} > ${s.alpha}) — the provider fails at random across locations, not in one region`;
    case 'too_few':
      return `too few probes to tell a region from chance: ${counts} (Fisher's exact test ${pText(s.p)}; even every probe failing from one side and none from the other would give ${pText(s.p_min)} > ${s.alpha})`;
  }
}

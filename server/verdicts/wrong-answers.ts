/**
 * Verdicts on answers (issue 39, docs/alerts.md "Verdicts on answers"): answer canaries that
 * answer wrongly, joined with the clients' `invalid_output` failures (answers that broke the
 * services' own validation).
 *
 * The volume rule. A location **answers wrongly** when, over the last
 * `wrong_answer_lookback_s` (1800 s) of its warm probes of the key, at least `wrong_answer_min`
 * (5) answered wrongly AND they make at least `wrong_answer_share` (20 %) of those probes. The
 * key's canaries **are wrong** when at least `wrong_answer_min_locations` (2) locations answer
 * wrongly — capped at the number of locations that probed the key, so a key probed from one
 * location needs that one. The lookback is the rule's own, not the verdict window's: a 5-min
 * alert window holds only 5 probes at the default 1/min interval.
 *
 * False alarms, for a canary right 99 % of the time (p = 0.01 wrong per probe, independent)
 * probed at the default interval (1 min: 30 probes in the lookback, so the share needs 6 wrong):
 * the exact binomial tail P(X ≥ 6 | n = 30, p = 0.01) = 4.83·10⁻⁷ for one look at a window; a
 * window turns wrong when its newest probe is the 6th wrong one, p · P(X = 5 | n = 29) =
 * 9.33·10⁻⁸ per probe, i.e. 1.34·10⁻⁴ per day at 1,440 probes — about once in 20 years per key
 * × location. With two locations required, both must cross together: ≈ 2 · 9.33·10⁻⁸ ·
 * 4.83·10⁻⁷ ≈ 9·10⁻¹⁴ per probe (never, in practice). Probed every 5 min (6 probes) it needs 5
 * wrong of 6: P = 5.95·10⁻¹⁰. One odd answer is not an incident; a real break (most answers
 * wrong) crosses on its 5th to 6th wrong probe.
 */
import { CLIENT_CLASSES } from '@breakerbox/protocol';
import type { AnswerRow, EventsPart } from '../storage/storage.ts';
import type { VerdictThresholds } from './figures.ts';
import type { Decision } from './rules.ts';
import type { ClientFigures, ProbeFigures } from './types.ts';
import { errorsOf } from './counters.ts';
import type { AnswerJudgement, AnswerSide, LocationAnswers } from './answer-judgement.ts';

export type { AnswerJudgement, AnswerSide, LocationAnswers } from './answer-judgement.ts';

/** The services whose calls failed `invalid_output` in the window (per-service sums), most first: what a judgement names. */
export async function invalidByService(services: ReadonlyMap<number, Float64Array>, nameOf: (service: number) => Promise<string>): Promise<AnswerJudgement['invalid']> {
  const invalid: AnswerJudgement['invalid'] = [];
  for (const [service, sums] of services) {
    const count = errorsOf(sums).invalid_output ?? 0;
    if (count > 0) invalid.push({ name: await nameOf(service), count });
  }
  return invalid.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

/** Whether a location's canaries answer wrongly by the volume rule. */
export function answersWrongly(r: Pick<AnswerRow, 'probes' | 'wrong'>, t: Pick<VerdictThresholds, 'wrong_answer_min' | 'wrong_answer_share'>): boolean {
  return r.probes > 0 && r.wrong >= t.wrong_answer_min && r.wrong / r.probes >= t.wrong_answer_share;
}

/**
 * The chance that one look at a location's `n` probes finds it answering wrongly by the rule
 * while its canary is wrong at random with probability `p` per probe: the exact binomial tail
 * from the least count the rule accepts. The figures in the module comment and docs/alerts.md
 * come from here (test/verdicts/wrong-answers.test.ts).
 */
export function windowFalseAlarm(p: number, n: number, t: Pick<VerdictThresholds, 'wrong_answer_min' | 'wrong_answer_share'>): number {
  let chance = 0;
  let binom = 1; // C(n, k), built up k by k
  for (let k = 0; k <= n; k++) {
    if (k > 0) binom = (binom * (n - k + 1)) / k;
    if (answersWrongly({ probes: n, wrong: k }, t)) chance += binom * p ** k * (1 - p) ** (n - k);
  }
  return chance;
}

/** Judges the rows of the usable locations (`setAside` left out). */
export function answerSide(rows: readonly AnswerRow[], setAside: ReadonlySet<string>, t: VerdictThresholds): AnswerSide {
  const locations = rows.filter((r) => !setAside.has(r.location) && r.probes > 0).map((r) => ({ ...r, wrongly: answersWrongly(r, t) }));
  const wrong = locations.filter((l) => l.wrongly).map((l) => l.location);
  const needed = Math.max(1, Math.min(t.wrong_answer_min_locations, locations.length));
  return { lookback_s: t.wrong_answer_lookback_s, locations, wrong, needed, wrongly: wrong.length >= needed };
}

/**
 * Whether the answer rule has anything to read for a key: a usable location with a wrong
 * answer in the window, or clients failing `invalid_output`. Keys with neither (nearly all)
 * cost no read.
 */
export function wantsAnswers(c: ClientFigures, usable: Record<string, ProbeFigures>): boolean {
  return (c.errors.invalid_output ?? 0) > 0 || Object.values(usable).some((f) => f.wrong_answer > 0);
}

/** Reads and judges the key's canaries over the lookback ending at `to`. */
export async function readAnswerSide(events: Pick<EventsPart, 'answerRows'>, keyIds: number[], to: number, setAside: ReadonlySet<string>, t: VerdictThresholds): Promise<AnswerSide> {
  const from = to - t.wrong_answer_lookback_s * 1000;
  // A key joined through aliases: its keys' locations summed (as the probe figures are).
  const byLocation = new Map<string, AnswerRow>();
  for (const id of keyIds) {
    for (const r of await events.answerRows(id, from, to + 1)) {
      const acc = byLocation.get(r.location);
      if (!acc) byLocation.set(r.location, { ...r });
      else {
        acc.probes += r.probes;
        acc.wrong += r.wrong;
        if (r.latest && (!acc.latest || r.latest.ts > acc.latest.ts)) acc.latest = r.latest;
      }
    }
  }
  return answerSide([...byLocation.values()].sort((a, b) => (a.location < b.location ? -1 : a.location > b.location ? 1 : 0)), setAside, t);
}

/** Whether `invalid_output` makes at least half of the failures of our own classes (our validation caught the answers, not our requests). */
export const validationLeads = (c: ClientFigures): boolean => {
  const invalid = c.errors.invalid_output ?? 0;
  const ours = CLIENT_CLASSES.reduce((n, k) => n + (c.errors[k] ?? 0), 0);
  return invalid > 0 && invalid * 2 >= ours;
};

/**
 * The decision with the answers judged:
 * - canaries wrong → `provider_degraded / wrong_answers`, whether the clients fail
 *   `invalid_output` (their validation caught it) or validate nothing (no failure, or no
 *   clients: the probes are the product's own requests). A worse provider verdict
 *   (`provider_outage`, `provider_suspected`) stands, and so does a `self_inflicted` not led
 *   by `invalid_output` (401s are ours whatever the answers);
 * - canaries not wrong and the clients' failures of our own classes led by `invalid_output`
 *   → the `self_inflicted / client_errors` the rules gave stands, carrying the services that
 *   failed validation (the evidence names them: a prompt or schema change of ours).
 * `invalid`: the services with `invalid_output` failures.
 */
export function judgeAnswers(d: Decision, c: ClientFigures, side: AnswerSide | null, invalid: AnswerJudgement['invalid']): Decision {
  if (!side) return d;
  const answers: AnswerJudgement = { side, invalid };
  if (side.wrongly) {
    if (d.verdict === 'provider_outage' || d.verdict === 'provider_suspected') return { ...d, answers };
    if (d.verdict === 'self_inflicted' && !validationLeads(c)) return { ...d, answers };
    // A wrong answer is no transport failure: the probe side stays what the transport says.
    return { verdict: 'provider_degraded', hint: 'wrong_answers', side: d.side, answers, ...(d.power ? { power: d.power } : {}) };
  }
  if (d.verdict === 'self_inflicted' && d.hint === 'client_errors' && validationLeads(c)) return { ...d, answers };
  return d;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "12:04:05 UTC". */
const clock = (ms: number): string => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/** `eu-west: 6 of 30 probes wrong over 30 min (expected the word "OK", got "Banana [redacted]" at 12:04:05 UTC)`. */
export function locationAnswerText(l: LocationAnswers, lookbackS: number): string {
  const span = lookbackS % 60 === 0 ? `${lookbackS / 60} min` : `${lookbackS} s`;
  const got = l.latest ? ` (${l.latest.expected ?? 'missed its canary'}${l.latest.excerpt !== null ? `; received "${l.latest.excerpt}"` : ''} at ${clock(l.latest.ts)})` : '';
  return `${l.location}: ${l.wrong} of ${plural(l.probes, 'probe')} wrong over ${span}${got}`;
}

/** The evidence sentences of a decision that judged the answers (none otherwise). */
export function answerSentences(d: Decision, t: Pick<VerdictThresholds, 'wrong_answer_min' | 'wrong_answer_share'>): string[] {
  const a = d.answers;
  if (!a) return [];
  const s = a.side;
  const rule = `≥ ${t.wrong_answer_min} wrong and ≥ ${Math.round(t.wrong_answer_share * 100)} % of a location's probes, from ${s.needed} location${s.needed === 1 ? '' : 's'}`;
  const invalid = a.invalid.length ? `${a.invalid.map((v) => `${v.name} (${v.count})`).join(', ')} failed invalid_output (answers that broke their own validation)` : null;
  if (s.wrongly) {
    const lines = [
      `answer canaries wrong from ${s.wrong.join(', ')} (${rule}): ${s.locations.filter((l) => l.wrongly).map((l) => locationAnswerText(l, s.lookback_s)).join('; ')}`,
    ];
    const right = s.locations.filter((l) => !l.wrongly);
    if (right.length) lines.push(`answer canaries not wrong by the rule from ${right.map((l) => locationAnswerText(l, s.lookback_s)).join('; ')}`);
    lines.push(invalid ? `clients: ${invalid} — the same wrong answers, seen by their validation` : 'clients: no call failed validation (services that validate nothing would not see these answers) — the probes are our own requests, so the verdict rests on them');
    return lines;
  }
  // Not wrong by the rule: say what the probes show, never more — a probe without a canary is never wrong.
  const probed = s.locations.length
    ? `the key's probes showed no canary failing by the rule over ${s.lookback_s % 60 === 0 ? `${s.lookback_s / 60} min` : `${s.lookback_s} s`} (${s.locations.map((l) => `${l.location}: ${l.wrong} wrong of ${plural(l.probes, 'probe')}`).join('; ')}; a target without a canary never answers wrongly, so this does not say a canary is configured)`
    : `no probe of the key over ${s.lookback_s % 60 === 0 ? `${s.lookback_s / 60} min` : `${s.lookback_s} s`}: nothing outside our services says the answers are wrong`;
  return [`${invalid ?? 'no call failed validation'}; ${probed} — a prompt, schema or validator change of ours`];
}

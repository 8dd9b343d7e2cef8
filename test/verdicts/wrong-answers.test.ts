/**
 * The answer rule on its own (server/verdicts/wrong-answers.ts, docs/alerts.md "Verdicts on
 * answers"): the volume rule per location, the locations it needs, what it makes of each
 * decision, the false-alarm figures the docs quote, and the wording when no probe speaks.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config/load.ts';
import type { Decision } from '../../server/verdicts/rules.ts';
import type { ClientFigures } from '../../server/verdicts/types.ts';
import { answerSentences, answerSide, answersWrongly, judgeAnswers, windowFalseAlarm } from '../../server/verdicts/wrong-answers.ts';

const t = loadConfig({ env: {} }).verdicts;
const row = (location: string, probes: number, wrong: number) => ({ location, probes, wrong, latest: wrong > 0 ? { ts: Date.UTC(2026, 11, 3, 12, 4, 5), expected: 'expected the word "OK", got another answer', excerpt: 'Banana' } : null });
const clients = (errors: Partial<ClientFigures['errors']>): ClientFigures => {
  const failed = Object.values(errors).reduce((n, v) => n + (v ?? 0), 0);
  return { calls: 40, failed, errors: { invalid_output: 0, auth: 0, ...errors } } as unknown as ClientFigures;
};
const decision = (verdict: Decision['verdict'], hint: Decision['hint']): Decision => ({ verdict, hint, side: 'healthy' });

describe('a location answers wrongly', () => {
  it('with at least 5 wrong answers making at least 20 % of its probes over the lookback — one odd answer never', () => {
    expect(answersWrongly({ probes: 4, wrong: 4 }, t)).toBe(false);
    expect(answersWrongly({ probes: 30, wrong: 1 }, t)).toBe(false);
    expect(answersWrongly({ probes: 25, wrong: 5 }, t)).toBe(true);
    expect(answersWrongly({ probes: 26, wrong: 5 }, t)).toBe(false);
    expect(answersWrongly({ probes: 30, wrong: 6 }, t)).toBe(true);
  });

  it('has the false-alarm rate the docs state for a canary right 99 % of the time', () => {
    // 1/min over 30 min: 6 of 30 needed, P(X >= 6 | 30, 0.01).
    expect(windowFalseAlarm(0.01, 30, t)).toBeCloseTo(4.83e-7, 9);
    // Every 5 min: 5 of 6 needed.
    expect(windowFalseAlarm(0.01, 6, t)).toBeCloseTo(5.95e-10, 12);
    // A canary that is broken (90 % wrong) crosses almost surely.
    expect(windowFalseAlarm(0.9, 30, t)).toBeGreaterThan(0.999);
  });
});

describe('the key\'s canaries are wrong', () => {
  it('from 2 locations, or from the one location that probes the key; set-aside locations do not count', () => {
    expect(answerSide([row('eu-west', 30, 6)], new Set(), t)).toMatchObject({ wrongly: true, needed: 1, wrong: ['eu-west'] });
    expect(answerSide([row('eu-west', 30, 6), row('us-east', 30, 0), row('ap-south', 30, 0)], new Set(), t)).toMatchObject({ wrongly: false, needed: 2, wrong: ['eu-west'] });
    expect(answerSide([row('eu-west', 30, 6), row('us-east', 30, 8)], new Set(), t)).toMatchObject({ wrongly: true, needed: 2 });
    expect(answerSide([row('eu-west', 30, 6), row('us-east', 30, 0)], new Set(['us-east']), t)).toMatchObject({ wrongly: true, needed: 1 });
  });
});

describe('judgeAnswers', () => {
  const wrong = answerSide([row('eu-west', 30, 6), row('us-east', 30, 7)], new Set(), t);
  const right = answerSide([row('eu-west', 30, 0), row('us-east', 30, 0)], new Set(), t);
  const invalid = [{ name: 'triage', count: 20 }];

  it('makes wrong canaries the provider\'s, whether the clients fail validation, validate nothing or are too few', () => {
    for (const [d, c] of [
      [decision('self_inflicted', 'client_errors'), clients({ invalid_output: 20 })],
      [decision('healthy', null), clients({})],
      [decision('insufficient_data', 'low_volume'), clients({})],
      [decision('healthy', 'probe_only'), clients({})],
    ] as const) {
      expect(judgeAnswers(d, c, wrong, invalid)).toMatchObject({ verdict: 'provider_degraded', hint: 'wrong_answers' });
    }
  });

  it('keeps a worse provider verdict, and a self_inflicted of other classes of ours (401s are ours whatever the answers)', () => {
    expect(judgeAnswers(decision('provider_outage', null), clients({}), wrong, [])).toMatchObject({ verdict: 'provider_outage', hint: null });
    expect(judgeAnswers(decision('self_inflicted', 'client_errors'), clients({ auth: 30, invalid_output: 2 }), wrong, [])).toMatchObject({ verdict: 'self_inflicted', hint: 'client_errors' });
  });

  it('leaves invalid_output with canaries not wrong self_inflicted / client_errors, naming the services and what the probes show', () => {
    const d = judgeAnswers(decision('self_inflicted', 'client_errors'), clients({ invalid_output: 20 }), right, invalid);
    expect([d.verdict, d.hint]).toEqual(['self_inflicted', 'client_errors']);
    expect(answerSentences(d, t)).toEqual([
      "triage (20) failed invalid_output (answers that broke their own validation); the key's probes showed no canary failing by the rule over 30 min (eu-west: 0 wrong of 30 probes; us-east: 0 wrong of 30 probes; a target without a canary never answers wrongly, so this does not say a canary is configured) — a prompt, schema or validator change of ours",
    ]);
    // No probe at all: never "the canaries are right".
    const none = judgeAnswers(decision('self_inflicted', 'client_errors'), clients({ invalid_output: 20 }), answerSide([], new Set(), t), invalid);
    expect(answerSentences(none, t)).toEqual(['triage (20) failed invalid_output (answers that broke their own validation); no probe of the key over 30 min: nothing outside our services says the answers are wrong — a prompt, schema or validator change of ours']);
  });
});

/**
 * Drill reports judged from drill telemetry (hand-built batches on the real /v1/telemetry,
 * a real collector on a SQLite file, a manual clock): a correctly configured service passes
 * all six drills, a misconfigured one fails each with the figures that say why, a run
 * without traffic is inconclusive, and each report is compared with the service's previous one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRILL_KINDS, type DrillKind } from '@breakerbox/protocol';
import { collector, type TestCollector } from '../verdicts/support.ts';
import { manualClock } from '../../server/clock.ts';
import type { DrillReport, DrillResult, DrillRunView } from '../../server/schemas/drills.ts';
import { judgeStep } from '../../server/drills/judge.ts';
import type { StepTraffic } from '../../server/drills/drill-traffic.ts';
import type { TransitionEvent } from '@breakerbox/protocol';
import { CORRECT, FALLBACK, MISCONFIGURED, PRIMARY, sendDrill, stepEvents, type StepBehaviour } from './support.ts';

const STEP_S = 60;
let c: TestCollector;
const clock = manualClock(Date.now() - 3_600_000);

const post = async (url: string, payload?: object) =>
  c.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${c.token}` }, ...(payload ? { payload } : {}) });

/** Starts a run, sends `behaviour`'s telemetry for each of its steps, lets it end and be judged. */
async function drill(behaviour: Record<string, StepBehaviour> | null): Promise<{ run: DrillRunView; report: DrillReport }> {
  const res = await post('/api/drills', { service: 'drafts', step_s: STEP_S, schedule_anyway: true });
  expect(res.statusCode).toBe(201);
  const run = res.json().run as DrillRunView;
  expect(run.kinds).toEqual([...DRILL_KINDS]);
  clock.advance(run.kinds.length * STEP_S * 1000);
  if (behaviour) {
    for (const [i, kind] of run.kinds.entries()) {
      const sent = await sendDrill(c, run.id, stepEvents(run.issued_at + i * STEP_S * 1000, STEP_S * 1000, behaviour[kind]!));
      expect(sent.statusCode, sent.body).toBe(200);
    }
  }
  // Not judged before the grace for late telemetry has passed.
  expect(await c.app.drills.judgeDue()).toEqual([]);
  expect((await c.get(`/api/drills/${run.id}`)).run.status).toBe('judging');
  clock.advance(c.app.config.drills.grace_s * 1000);
  const judged = await c.app.drills.judgeDue();
  expect(judged.map((j) => j.id)).toEqual([run.id]);
  const read = (await c.get(`/api/drills/${run.id}`)).run as DrillRunView;
  expect(read.status).toBe('done');
  return { run: read, report: read.report! };
}

const byKind = (r: DrillReport): Record<DrillKind, DrillResult> => Object.fromEntries(r.drills.map((d) => [d.kind, d])) as Record<DrillKind, DrillResult>;

beforeAll(async () => {
  c = await collector({ clock });
});
afterAll(async () => {
  await c.close();
});

describe('drill reports', () => {
  let first: DrillRunView;

  it('passes every drill of a correctly configured service, with the figures it was judged on', async () => {
    const { run, report } = await drill(CORRECT);
    first = run;
    expect(report.outcome).toBe('pass');
    expect(report.drills.map((d) => [d.kind, d.outcome])).toEqual(DRILL_KINDS.map((k) => [k, 'pass']));
    expect(report.instances).toEqual(['pod-1']);
    expect(report.comparison).toBeNull();
    const d = byKind(report);
    expect(d.rate_limit.checks.find((x) => x.name === 'attempts_per_call')).toMatchObject({ value: 2, passed: true });
    expect(d.slow_first_byte.checks.find((x) => x.name === 'seconds_to_open')).toMatchObject({ value: 12, passed: true });
    expect(d.truncated.checks.find((x) => x.name === 'truncated_share')).toMatchObject({ value: 1, passed: true });
    expect(d.field_renamed.checks.find((x) => x.name === 'invalid_output')).toMatchObject({ value: 60, passed: true });
    // The auth drill's page is evaluated on the drill data and recorded, never sent.
    expect(d.auth_revoked.alert).toMatchObject({ rule: 'clients_degraded', would_fire: true, verdict: 'self_inflicted', hint: 'client_errors', calls: 60 });
    expect(d.auth_revoked.checks.find((x) => x.name === 'auth_attempts_per_call')).toMatchObject({ value: 1, passed: true });
  });

  it('fails each drill of a misconfigured service with the reason, and calls out the regressions against the previous run', async () => {
    const { report } = await drill(MISCONFIGURED);
    expect(report.outcome).toBe('fail');
    expect(report.drills.map((d) => [d.kind, d.outcome])).toEqual(DRILL_KINDS.map((k) => [k, 'fail']));
    const d = byKind(report);
    const failedChecks = (kind: DrillKind) => d[kind].checks.filter((x) => x.passed === false).map((x) => x.name);
    // Retries stacked on the drilled key: the attempts per call show it.
    expect(failedChecks('rate_limit')).toEqual(['attempts_per_call', 'rate_limited_per_call']);
    expect(d.rate_limit.reasons).toContain('attempts per call (retries within budget): 4 (at most 3)');
    expect(failedChecks('slow_first_byte')).toEqual(['slow_call_opens', 'seconds_to_open']);
    // No fallback: rotation fails and the users see the failures.
    expect(failedChecks('primary_down')).toEqual(['fallback_answered', 'user_visible_failures']);
    expect(failedChecks('truncated')).toEqual(['truncated', 'truncated_share']);
    // No validation: the renamed field is never caught.
    expect(failedChecks('field_renamed')).toEqual(['invalid_output', 'fallback_answered']);
    // Retries on 401: two attempts per call on the revoked key, and the samples show the second attempt.
    expect(failedChecks('auth_revoked')).toEqual(['auth_attempts_per_call', 'auth_retried_samples']);
    expect(report.comparison).toMatchObject({ previous_id: first.id });
    expect(report.comparison!.regressions.map((r) => r.kind)).toEqual([...DRILL_KINDS]);
    expect(report.comparison!.fixed).toEqual([]);
  });

  it('judges a drill without traffic inconclusive, never passed', async () => {
    const { report } = await drill(null);
    expect(report.outcome).toBe('inconclusive');
    expect(report.drills.every((d) => d.outcome === 'inconclusive')).toBe(true);
    expect(report.drills[0]!.reasons[0]).toMatch(/no drill traffic/);
    expect(report.batches).toBe(0);
  });

  it('judges a drill inconclusive when its fault never showed (drills off on the instance)', async () => {
    const plain: Record<string, StepBehaviour> = Object.fromEntries(DRILL_KINDS.map((k) => [k, { primary: { calls: 10 }, tasks: { completed: 10, failed: 0, attempts: 10, levels: { '0': 10 } } }]));
    const { report } = await drill(plain);
    const d = byKind(report);
    for (const k of ['rate_limit', 'slow_first_byte', 'primary_down', 'auth_revoked'] as const) {
      expect(d[k].outcome, k).toBe('inconclusive');
      expect(d[k].reasons[0]).toMatch(/the fault was not injected/);
    }
    // An SDK that misses a truncation or a renamed field counts them as successes: those fail.
    expect(d.truncated.outcome).toBe('fail');
    expect(d.field_renamed.outcome).toBe('fail');
  });

  it('lists the runs newest first, and fixes show against a failed run', async () => {
    const { report } = await drill(CORRECT);
    expect(report.outcome).toBe('pass');
    expect(report.comparison!.regressions).toEqual([]);
    expect(report.comparison!.fixed.map((f) => [f.kind, f.before])).toEqual(DRILL_KINDS.map((k) => [k, ['truncated', 'field_renamed'].includes(k) ? 'fail' : 'inconclusive']));
    const list = await c.get('/api/drills?service=drafts');
    expect(list.runs).toHaveLength(5);
    expect(list.runs[0].report.outcome).toBe('pass');
    expect(list.runs[4].id).toBe(first.id);
  });

  it('judges only the chains that start at the drilled keys when the run names them', async () => {
    const res = await post('/api/drills', { service: 'drafts', kinds: ['primary_down'], keys: [PRIMARY], step_s: STEP_S, schedule_anyway: true });
    const run = res.json().run as DrillRunView;
    clock.advance(STEP_S * 1000);
    const other = stepEvents(run.issued_at, STEP_S * 1000, MISCONFIGURED.primary_down).map((e) => (e.type === 'tasks' ? { ...e, operation: 'summarise', key: FALLBACK } : e)).filter((e) => e.type === 'tasks');
    expect((await sendDrill(c, run.id, [...stepEvents(run.issued_at, STEP_S * 1000, CORRECT.primary_down), ...other])).statusCode).toBe(200);
    clock.advance(c.app.config.drills.grace_s * 1000);
    await c.app.drills.judgeDue();
    const report = (await c.get(`/api/drills/${run.id}`)).run.report as DrillReport;
    // The other chain's 60 failed calls are not this drill's: it passes on the drilled chain's 60 calls.
    expect(report.drills[0]).toMatchObject({ kind: 'primary_down', outcome: 'pass', calls: 60 });
  });

  it('passes slow_first_byte when the breaker the drill before left open reopens on a slow trial, or opens on first-byte timeouts', () => {
    // rate_limit runs first and opens the breaker; its half-open trials then meet the slow first bytes (probe_failed).
    const step = { kind: 'slow_first_byte' as const, from: 0, to: 60_000 };
    const traffic = (o: Partial<StepTraffic>): StepTraffic => ({
      attempts: 2, ok: 0, slow: 2, retries: 0, errors: {}, windows: [], calls: 30, failed: 0, fallbackAnswered: 30, callAttempts: 32,
      transitions: [], authRetriedSamples: 0, instances: new Set(['drafts/pod-1']), ...o,
    });
    const opened = (reason: TransitionEvent['reason'], ts = 400): TransitionEvent => ({ type: 'transition', ts, key: PRIMARY, from: 'half_open', to: 'open', reason });
    const reopened = judgeStep(step, traffic({ transitions: [opened('probe_failed')] }), c.app.config);
    expect(reopened.outcome).toBe('pass');
    expect(reopened.checks[0]).toMatchObject({ value: 1, text: 'breaker opened on slow first bytes (probe_failed): 1 (some expected)' });
    expect(reopened.checks[1]).toMatchObject({ value: 0.4, passed: true });
    // A key with a first-byte timeout: the held attempts time out, and the breaker opens on their error rate.
    const timedOut = judgeStep(step, traffic({ slow: 0, attempts: 8, errors: { timeout: 8 }, transitions: [opened('error_rate', 5_000)] }), c.app.config);
    expect(timedOut.outcome).toBe('pass');
    // An error-rate opening with no timeout in the step is not this drill's doing; no opening at all fails.
    expect(judgeStep(step, traffic({ transitions: [opened('error_rate')] }), c.app.config).outcome).toBe('fail');
    expect(judgeStep(step, traffic({}), c.app.config).reasons).toContain('breaker opened on slow first bytes: 0 (some expected)');
  });
});

/**
 * Judges each drill of a run from the drill telemetry it received (docs/drills.md, "What
 * each drill checks"): pass when every check holds, fail when one does not (the reasons
 * name the figures), inconclusive when the step saw no drill traffic or no sign of the
 * injected fault (drills off on the instances, no calls, the run stopped first).
 */
import type { DrillKind } from '@breakerbox/protocol';
import type { Config } from '../config/schema.ts';
import type { DrillCheck, DrillOutcome, DrillResult } from '../schemas/drills.ts';
import { DRILL_THRESHOLDS as T } from './thresholds.ts';
import type { DrillStep, StepTraffic } from './drill-traffic.ts';
import { wouldAlert } from './would-alert.ts';

const round = (x: number): number => Number(x.toFixed(3));
const ratio = (a: number, b: number): number | null => (b > 0 ? round(a / b) : null);
const shown = (v: number | null) => (v === null ? 'n/a' : String(v));

const atMost = (name: string, value: number | null, limit: number, what: string): DrillCheck =>
  ({ name, value, expected: `<= ${limit}`, passed: value === null ? null : value <= limit, text: `${what}: ${shown(value)} (at most ${limit})` });
const atLeast = (name: string, value: number | null, limit: number, what: string): DrillCheck =>
  ({ name, value, expected: `>= ${limit}`, passed: value === null ? null : value >= limit, text: `${what}: ${shown(value)} (at least ${limit})` });
const noneOf = (name: string, value: number, what: string): DrillCheck =>
  ({ name, value, expected: '= 0', passed: value === 0, text: `${what}: ${value} (none expected)` });
const someOf = (name: string, value: number, what: string): DrillCheck =>
  ({ name, value, expected: '> 0', passed: value > 0, text: `${what}: ${value} (some expected)` });

/** The fault a drill injects, as the telemetry shows it: its count on the drilled keys and what its absence means. */
function faultSeen(kind: DrillKind, t: StepTraffic): { seen: boolean; missing: string } {
  const e = (cls: string) => t.errors[cls] ?? 0;
  switch (kind) {
    case 'rate_limit':
      return { seen: e('rate_limit') > 0, missing: 'no attempt on the drilled keys met a 429' };
    case 'slow_first_byte':
      return { seen: t.slow + e('timeout') > 0 || t.transitions.some((x) => x.reason === 'slow_calls'), missing: 'no slow or timed-out attempt on the drilled keys' };
    case 'primary_down':
      return { seen: e('network') > 0, missing: 'no attempt on the drilled keys met a refused connection' };
    case 'auth_revoked':
      return { seen: e('auth') > 0, missing: 'no attempt on the drilled keys met a 401/403' };
    default:
      // truncated, field_renamed: an SDK that misses the fault counts it as a success, which is what the checks catch.
      return { seen: t.attempts > 0, missing: 'no attempt on the drilled keys' };
  }
}

function checksOf(kind: DrillKind, step: DrillStep, t: StepTraffic, config: Pick<Config, 'verdicts' | 'alerts'>): { checks: DrillCheck[]; alert?: DrillResult['alert'] } {
  const e = (cls: string) => t.errors[cls] ?? 0;
  const rotated = () => someOf('fallback_answered', t.fallbackAnswered, 'calls answered by a fallback (level >= 1)');
  const noUserFailures = () => noneOf('user_visible_failures', t.failed, 'calls that failed for the user');
  switch (kind) {
    case 'rate_limit':
      return {
        checks: [
          atMost('attempts_per_call', ratio(t.callAttempts, t.calls), T.maxAttemptsPerCall, 'attempts per call (retries within budget)'),
          atMost('rate_limited_per_call', ratio(e('rate_limit'), t.calls), T.maxRateLimitedPerCall, 'rate-limited attempts per call (backoff honoured)'),
          rotated(),
          noUserFailures(),
        ],
      };
    case 'slow_first_byte': {
      // The breaker opens on the slow first bytes as slow calls (`slow_calls`), as first-byte timeouts (`error_rate`, a key
      // with a TTFT timeout), or — left open by the drill before, rate_limit in the standard order — by reopening on a slow
      // or timed-out half-open trial (`probe_failed`): this drill injects nothing else into the drilled keys.
      const reasons = new Set<string>(['slow_calls', 'probe_failed', ...(e('timeout') > 0 ? ['error_rate'] : [])]);
      const open = t.transitions.find((x) => reasons.has(x.reason) && (x.to === 'open' || x.to === 'forced_open'));
      const seconds = open ? round((open.ts - step.from) / 1000) : null;
      return {
        checks: [
          someOf('slow_call_opens', open ? 1 : 0, `breaker opened on slow first bytes${open ? ` (${open.reason})` : ''}`),
          { ...atMost('seconds_to_open', seconds, T.maxSecondsToOpen, 'seconds from the drill start to the breaker opening'), passed: seconds === null ? false : seconds <= T.maxSecondsToOpen },
        ],
      };
    }
    case 'primary_down':
      return { checks: [rotated(), noUserFailures()] };
    case 'truncated': {
      const answered = t.ok + t.slow + e('truncated');
      return {
        checks: [
          someOf('truncated', e('truncated'), 'attempts counted as truncated'),
          atLeast('truncated_share', ratio(e('truncated'), answered), T.minTruncatedShare, 'share of answered attempts counted as truncated, not as success'),
        ],
      };
    }
    case 'field_renamed':
      return { checks: [someOf('invalid_output', e('invalid_output'), 'answers that failed validation (invalid_output)'), rotated(), noUserFailures()] };
    case 'auth_revoked': {
      const alert = wouldAlert(t.windows, step.to - step.from, t.instances.size, config);
      return {
        alert,
        checks: [
          atMost('auth_attempts_per_call', ratio(e('auth'), t.calls), T.maxAuthAttemptsPerCall, 'attempts per call on the revoked key (no retry loop)'),
          noneOf('auth_retried_samples', t.authRetriedSamples, 'sampled second attempts after a 401/403'),
          { name: 'would_alert', value: alert.would_fire ? 1 : 0, expected: '= 1', passed: alert.would_fire ? true : alert.enough ? false : null, text: alert.text },
        ],
      };
    }
  }
}

/** Judges one step of a run. */
export function judgeStep(step: DrillStep, t: StepTraffic, config: Pick<Config, 'verdicts' | 'alerts'>): DrillResult {
  const base = { kind: step.kind, from: step.from, to: step.to, attempts: t.attempts, calls: t.calls };
  if (step.to <= step.from) return { ...base, outcome: 'inconclusive', checks: [], reasons: ['the run was stopped before this drill began'] };
  if (t.attempts === 0 && t.calls === 0) {
    return { ...base, outcome: 'inconclusive', checks: [], reasons: ['no drill traffic reached the collector in this drill\'s span (drills enabled on the instances? any calls?)'] };
  }
  const { checks, alert } = checksOf(step.kind, step, t, config);
  const fault = faultSeen(step.kind, t);
  const failed = checks.filter((c) => c.passed === false);
  let outcome: DrillOutcome;
  let reasons: string[];
  if (!fault.seen) {
    outcome = 'inconclusive';
    reasons = [`${fault.missing}: the fault was not injected`];
  } else if (failed.length > 0) {
    outcome = 'fail';
    reasons = failed.map((c) => c.text);
  } else if (checks.some((c) => c.passed === null)) {
    outcome = 'inconclusive';
    reasons = checks.filter((c) => c.passed === null).map((c) => `${c.text}: could not be told`);
  } else {
    outcome = 'pass';
    reasons = [];
  }
  return { ...base, outcome, checks, ...(alert ? { alert } : {}), reasons };
}

/** A run's outcome: pass when every drill passed, fail when one failed, else inconclusive. */
export function runOutcome(results: readonly DrillResult[]): DrillOutcome {
  if (results.some((r) => r.outcome === 'fail')) return 'fail';
  return results.length > 0 && results.every((r) => r.outcome === 'pass') ? 'pass' : 'inconclusive';
}

/**
 * The page a drill expects, evaluated against the drill's own data and never notified: the
 * `clients_degraded` rule's condition (docs/alerts.md) over the drilled keys' windows of one
 * step — clients degraded, a decided verdict that hurts (the auth drill: `self_inflicted` /
 * `auth`), at least the rule's `min_calls`, held for its `for_s`. The same verdict rules the
 * real evaluation uses (verdicts/rules.ts `decide`), with no probes: a 401 needs none.
 */
import { ERROR_CLASSES, type WindowEvent } from '@breakerbox/protocol';
import type { Config } from '../config/schema.ts';
import { K, newKeySums } from '../verdicts/counters.ts';
import { clientFigures, type VerdictThresholds } from '../verdicts/figures.ts';
import { HURT } from '../verdicts/incidents.ts';
import { decide } from '../verdicts/rules.ts';
import type { DrillResult } from '../schemas/drills.ts';

/** What the rule would have done. */
export type WouldAlert = NonNullable<DrillResult['alert']>;

/** Evaluates `clients_degraded` over one step's windows of the drilled keys. */
export function wouldAlert(windows: readonly WindowEvent[], spanMs: number, instances: number, config: Pick<Config, 'verdicts' | 'alerts'>): WouldAlert {
  const rule = config.alerts.rules.clients_degraded;
  const sums = newKeySums();
  for (const w of windows) {
    sums[K.calls]! += w.calls;
    sums[K.ok]! += w.ok;
    sums[K.slow]! += w.slow;
    sums[K.rejected]! += w.rejected;
    sums[K.shortCircuited]! += w.short_circuited;
    sums[K.retries]! += w.retries;
    sums[K.halfOpenOk]! += w.half_open.ok;
    sums[K.halfOpenFailed]! += w.half_open.failed;
    ERROR_CLASSES.forEach((c, i) => {
      sums[K.errors + i]! += w.errors[c] ?? 0;
    });
  }
  const thresholds: VerdictThresholds = config.verdicts;
  const c = clientFigures(sums, { spanMs: Math.max(spanMs, 1), openShare: null, instances, services: 1, fallback: { invoked: 0, failed: 0 } }, thresholds);
  const d = decide(c, {}, [], thresholds);
  const met = c.degraded && HURT.includes(d.verdict) && c.calls >= rule.min_calls;
  const held = spanMs >= rule.for_s * 1000;
  const fires = rule.enabled && met && held;
  const enough = c.calls >= rule.min_calls && held;
  const label = `${d.verdict}${d.hint ? ` / ${d.hint}` : ''}`;
  const text = !rule.enabled
    ? 'would not page: alerts.rules.clients_degraded is disabled'
    : fires
      ? `clients_degraded (${rule.severity}) would have paged: ${label}, ${c.calls} calls, ${Math.round((c.error_share ?? 0) * 100)}% failed`
      : !held
        ? `clients_degraded cannot be told: the drill ran ${Math.round(spanMs / 1000)} s, less than the rule's for_s (${rule.for_s} s)`
        : c.calls < rule.min_calls
          ? `clients_degraded cannot be told: ${c.calls} calls on the revoked key, the rule needs ${rule.min_calls}`
          : `clients_degraded would not page: ${label} on ${c.calls} calls (it pages on a decided verdict that hurts)`;
  return { rule: 'clients_degraded', severity: rule.severity, would_fire: fires, enough, verdict: d.verdict, hint: d.hint, calls: c.calls, text };
}

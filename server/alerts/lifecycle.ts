import type { AlertChange, StoredAlert } from '../storage/storage.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import { verdictPhrase } from './summary.ts';
import type { Condition, Severity } from './types.ts';

/** What the lifecycle reads of a rule's config. */
export interface LifecycleRule {
  for_s: number;
  severity: Severity;
}

/**
 * Stage 2, pure: the change one target's condition makes to its alert — pending when it
 * first holds, firing once it has held `for_s`, resolved when clear; `hold` (between a
 * rule's fire and resolve thresholds: hysteresis) keeps a firing alert firing and drops a
 * pending one. `analysis` is the key's over the verdict window (its verdict and phrase go
 * into the summary), unless the condition brings its own. Null: nothing to change.
 * `for_s` is counted from the condition's data onset when the rule gives one (never later
 * than the first pass that saw it: the onset only makes an alert due sooner), else from the
 * pass that first saw it; `started_at` is that onset.
 */
export function lifecycleStep(now: number, c: Condition, existing: StoredAlert | undefined, rule: LifecycleRule, analysis: KeyAnalysis | undefined): AlertChange | null {
  const summary = c.key ? `${c.text} — ${c.verdict?.phrase ?? verdictPhrase(analysis)}` : c.text;
  const fields = {
    summary, value: c.value, severity: c.severity ?? rule.severity,
    verdict: c.verdict?.verdict ?? analysis?.decision.verdict ?? null, hint: c.verdict ? c.verdict.hint : (analysis?.decision.hint ?? null), updated_at: now,
  };
  if (!existing) {
    if (c.status !== 'fire') return null;
    const started = Math.min(now, c.onset ?? now);
    const firing = rule.for_s === 0 || now - started >= rule.for_s * 1000;
    return {
      op: 'insert',
      alert: {
        fingerprint: c.fingerprint, rule: c.rule, keyId: c.keyId, location: c.location, operation: c.operation,
        state: firing ? 'firing' : 'pending', started_at: started, fired_at: firing ? now : null, resolved_at: null, ...fields,
      },
    };
  }
  if (existing.state === 'pending') {
    if (c.status !== 'fire') return { op: 'remove', id: existing.id };
    const due = now - Math.min(existing.started_at, c.onset ?? existing.started_at) >= rule.for_s * 1000;
    return { op: 'update', id: existing.id, fields: { ...fields, state: due ? 'firing' : 'pending', fired_at: due ? now : null, resolved_at: null } };
  }
  if (c.status === 'clear') return { op: 'update', id: existing.id, fields: { ...fields, state: 'resolved', fired_at: existing.fired_at, resolved_at: now } };
  return { op: 'update', id: existing.id, fields: { ...fields, state: 'firing', fired_at: existing.fired_at, resolved_at: null } };
}

/** The condition of a target no rule reported this pass (key gone quiet, rule disabled): clear, resolving at the severity it last had. */
export function clearedCondition(a: StoredAlert): Condition {
  return { fingerprint: a.fingerprint, rule: a.rule, keyId: a.keyId, key: a.key, location: a.location, operation: a.operation, status: 'clear', value: a.value, text: a.summary.split(' — ')[0]!, severity: a.severity };
}

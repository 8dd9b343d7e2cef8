import type { DrillComparison, DrillResult } from '../schemas/drills.ts';

/**
 * How a run's drills changed since the previous judged run of the same service: pass → fail
 * is a regression, fail or inconclusive → pass is fixed; drills run only once are left out.
 */
export function compareRuns(now: readonly DrillResult[], previous: { id: string; issuedAt: number; drills: readonly DrillResult[] }): DrillComparison {
  const before = new Map(previous.drills.map((d) => [d.kind, d.outcome]));
  const out: DrillComparison = { previous_id: previous.id, previous_issued_at: previous.issuedAt, regressions: [], fixed: [], other: [] };
  for (const d of now) {
    const was = before.get(d.kind);
    if (was === undefined || was === d.outcome) continue;
    const change = { kind: d.kind, before: was, now: d.outcome };
    if (was === 'pass' && d.outcome === 'fail') out.regressions.push(change);
    else if (d.outcome === 'pass') out.fixed.push(change);
    else out.other.push(change);
  }
  return out;
}

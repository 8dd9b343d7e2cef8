import type { DrillResult, DrillRunView } from '../schemas/drills.ts';

const MARK = { pass: 'PASS', fail: 'FAIL', inconclusive: 'INCONCLUSIVE' } as const;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function drillLines(d: DrillResult): string[] {
  const out = [`  ${MARK[d.outcome].padEnd(12)} ${d.kind}  (${d.calls} calls, ${d.attempts} attempts on the drilled keys)`];
  for (const c of d.checks) out.push(`      ${c.passed === true ? 'ok ' : c.passed === false ? 'NO ' : '?  '} ${c.text}`);
  if (d.alert && !d.checks.some((c) => c.name === 'would_alert')) out.push(`      ${d.alert.text}`);
  for (const r of d.reasons.filter((r) => !d.checks.some((c) => c.text === r))) out.push(`      - ${r}`);
  return out;
}

/** A run and its report as plain text (the CLI prints it; docs/drills.md shows one). */
export function reportText(run: DrillRunView): string {
  const head = `drill ${run.id} on ${run.service}: ${run.kinds.length} drills x ${run.step_ms / 1000} s, ${iso(run.issued_at)} .. ${iso(run.ends_at)}${run.stopped_at ? ` (stopped by ${run.stopped_by ?? 'unknown'})` : ''}`;
  const r = run.report;
  if (!r) return `${head}\n  ${run.status}: no report yet`;
  const lines = [head, `outcome: ${MARK[r.outcome]}  (${r.batches} drill batches from ${r.instances.length} instance${r.instances.length === 1 ? '' : 's'}: ${r.instances.join(', ') || 'none'})`];
  for (const d of r.drills) lines.push(...drillLines(d));
  if (r.comparison) {
    const c = r.comparison;
    lines.push(`compared with ${c.previous_id} (${iso(c.previous_issued_at)}):`);
    if (c.regressions.length + c.fixed.length + c.other.length === 0) lines.push('  no drill changed outcome');
    for (const x of c.regressions) lines.push(`  REGRESSION ${x.kind}: ${x.before} -> ${x.now}`);
    for (const x of c.fixed) lines.push(`  fixed      ${x.kind}: ${x.before} -> ${x.now}`);
    for (const x of c.other) lines.push(`  changed    ${x.kind}: ${x.before} -> ${x.now}`);
  } else {
    lines.push('no previous drill of this service to compare with');
  }
  return lines.join('\n');
}

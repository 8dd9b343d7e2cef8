import type { DrillReport, DrillResult } from '../api/types.ts';

const LABEL = { pass: 'pass', fail: 'FAIL', inconclusive: 'inconclusive' } as const;

/** One drill's outcome with the figures it was judged on. */
function DrillRow({ d }: { d: DrillResult }) {
  return (
    <li className={`drill-result drill-${d.outcome}`} data-testid="drill-result" data-kind={d.kind} data-outcome={d.outcome}>
      <div>
        <strong>{LABEL[d.outcome]}</strong> <code>{d.kind}</code> <span className="muted">({d.calls} calls, {d.attempts} attempts on the drilled keys)</span>
      </div>
      {d.checks.length > 0 ? (
        <ul className="drill-checks">
          {d.checks.map((c) => (
            <li key={c.name} data-check={c.name} data-passed={String(c.passed)}>
              <span aria-hidden="true">{c.passed === true ? '✓' : c.passed === false ? '✗' : '?'}</span> {c.text}
            </li>
          ))}
        </ul>
      ) : null}
      {d.reasons.length > 0 && d.checks.length === 0 ? <p className="muted">{d.reasons.join(' ')}</p> : null}
      {d.alert ? <p className="muted" data-testid="drill-alert">Page evaluated, not sent: {d.alert.text}</p> : null}
    </li>
  );
}

/** A run's report: the outcome, each drill, and what changed since the service's previous run. */
export function DrillReportView({ report }: { report: DrillReport }) {
  const c = report.comparison;
  return (
    <div className="drill-report" data-testid="drill-report" data-outcome={report.outcome}>
      <p>
        Outcome: <strong>{LABEL[report.outcome]}</strong>{' '}
        <span className="muted">— {report.batches} drill batch{report.batches === 1 ? '' : 'es'} from {report.instances.join(', ') || 'no instance'}</span>
      </p>
      <ul className="drill-results">
        {report.drills.map((d) => <DrillRow key={d.kind} d={d} />)}
      </ul>
      {c ? (
        <div data-testid="drill-comparison">
          <h4>Since the previous drill ({new Date(c.previous_issued_at).toLocaleString()})</h4>
          {c.regressions.length + c.fixed.length + c.other.length === 0 ? <p className="muted">No drill changed outcome.</p> : (
            <ul>
              {c.regressions.map((x) => <li key={x.kind} className="bad" data-testid="drill-regression">Regression: <code>{x.kind}</code> {x.before} → {x.now}</li>)}
              {c.fixed.map((x) => <li key={x.kind}>Fixed: <code>{x.kind}</code> {x.before} → {x.now}</li>)}
              {c.other.map((x) => <li key={x.kind}>Changed: <code>{x.kind}</code> {x.before} → {x.now}</li>)}
            </ul>
          )}
        </div>
      ) : <p className="muted">The service's first drill: nothing to compare with.</p>}
    </div>
  );
}

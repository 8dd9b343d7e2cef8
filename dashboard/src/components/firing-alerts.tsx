import type { Alert } from '../api/types.ts';
import { keyContext, keyParams } from '../format.ts';
import { formatDuration, type TimeRange } from '../time-range.ts';
import { viewHref } from '../url-state.ts';
import { Link } from './link.tsx';
import { VerdictBadge } from './verdict-badge.tsx';

/** Firing alerts across the top of the board: severity, summary, verdict, how long. */
export function FiringAlerts({ alerts, range }: { alerts: Alert[]; range: TimeRange }) {
  if (alerts.length === 0) {
    return <p className="alerts-strip alerts-none" data-testid="firing-alerts"><span aria-hidden="true">✔</span> No alert firing.</p>;
  }
  const now = Date.now();
  return (
    <section className="alerts-strip" aria-label={`${alerts.length} firing alerts`} data-testid="firing-alerts">
      <h2><span aria-hidden="true">▲</span> {alerts.length} alert{alerts.length > 1 ? 's' : ''} firing</h2>
      <ul>
        {alerts.slice(0, 8).map((alert) => (
          <li key={alert.id} className={`alert-line severity-${alert.severity}`}>
            <span className="severity">{alert.severity}</span> <strong>{alert.rule}</strong>{' '}
            {alert.key ? (
              <Link href={viewHref('/key', range, keyParams(alert.key))}>{alert.key.model} <span className="muted">({keyContext(alert.key)}{alert.location ? `, from ${alert.location}` : ''})</span></Link>
            ) : (
              <span>operation {alert.operation}</span>
            )}
            : {alert.summary}{' '}
            {alert.verdict ? <VerdictBadge verdict={alert.verdict} hint={alert.hint} /> : null}{' '}
            <span className="muted">firing {formatDuration(now - (alert.fired_at ?? alert.started_at))}</span>
            {alert.silenced ? <span className="silenced"> · silenced</span> : null}
          </li>
        ))}
      </ul>
      {alerts.length > 8 ? <Link href={viewHref('/alerts', range)}>All {alerts.length} firing alerts</Link> : null}
    </section>
  );
}

import { useState } from 'react';
import { api, ApiFailure } from '../api/client.ts';
import type { Alert, AlertState, Delivery, Silence } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { Link } from '../components/link.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { SilenceForm } from '../components/silence-form.tsx';
import { VerdictBadge } from '../components/verdict-badge.tsx';
import { keyContext, keyParams } from '../format.ts';
import { formatDateTime, formatDuration, type TimeRange } from '../time-range.ts';
import { useUrlParams, viewHref } from '../url-state.ts';

interface AlertsData {
  alerts: Alert[];
  silences: Silence[];
  deliveries: Delivery[] | undefined;
}

async function loadAlerts(signal: AbortSignal): Promise<AlertsData> {
  const [alerts, silences, notifications] = await Promise.all([
    api('GET /api/alerts', { signal }),
    api('GET /api/silences', { signal }),
    api('GET /api/notifications', { query: { limit: 500 }, signal }).catch((err: unknown) => {
      if (err instanceof ApiFailure && (err.kind === 'missing' || err.kind === 'rejected')) return undefined;
      throw err;
    }),
  ]);
  return { alerts: alerts.alerts, silences: silences.silences, deliveries: notifications?.deliveries };
}

const SECTIONS: { state: AlertState; title: string }[] = [
  { state: 'firing', title: 'Firing' },
  { state: 'pending', title: 'Pending' },
  { state: 'resolved', title: 'Resolved (last 24 h)' },
];

/** Alerts by state with their verdicts and deliveries; silences made from an alert, listed and expired. */
export default function Alerts({ canAdmin }: { canAdmin: boolean }) {
  const { range } = useUrlParams();
  const polled = usePoll(loadAlerts, []);
  const [silencing, setSilencing] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const data = polled.data;

  const expire = async (silence: Silence) => {
    try {
      await api('DELETE /api/silences/:id', { params: { id: silence.id } });
      setMessage(`Silence “${silence.comment}” expired.`);
    } catch (err) {
      setMessage(`Could not expire the silence: ${(err as Error).message}`);
    }
    polled.refresh();
  };

  return (
    <section className="alerts-view" aria-labelledby="alerts-title">
      <div className="view-head">
        <h1 id="alerts-title">Alerts</h1>
        <RefreshStatus polled={polled} />
      </div>
      {message ? <p className="notice" role="status">{message}</p> : null}
      {!canAdmin ? <p className="muted">Creating and expiring silences needs a token with the <code>admin</code> right; this session can only read.</p> : null}
      {polled.error && !data && polled.error.kind !== 'unreachable' ? <p className="error-panel" role="alert">Could not load alerts: {polled.error.message}</p> : null}
      {data ? (
        <div className={polled.error ? 'stale' : undefined}>
          {SECTIONS.map(({ state, title }) => {
            const list = data.alerts.filter((a) => a.state === state);
            return (
              <section key={state} aria-labelledby={`alerts-${state}`} data-testid={`alerts-${state}`}>
                <h2 id={`alerts-${state}`}>{title} <span className="muted">({list.length})</span></h2>
                {list.length === 0 ? <p className="muted">None.</p> : (
                  <ul className="alert-list">
                    {list.map((alert) => (
                      <AlertItem
                        key={alert.id}
                        alert={alert}
                        range={range}
                        deliveries={data.deliveries?.filter((d) => d.alert_id === alert.id)}
                        canAdmin={canAdmin}
                        silencing={silencing === alert.id}
                        onSilence={() => setSilencing(silencing === alert.id ? null : alert.id)}
                        onSilenced={(s) => {
                          setSilencing(null);
                          setMessage(`Silence created until ${formatDateTime(s.ends_at)}.`);
                          polled.refresh();
                        }}
                      />
                    ))}
                  </ul>
                )}
              </section>
            );
          })}
          <Silences silences={data.silences} canAdmin={canAdmin} onExpire={expire} />
        </div>
      ) : null}
    </section>
  );
}

function AlertItem(props: {
  alert: Alert; range: TimeRange; deliveries: Delivery[] | undefined; canAdmin: boolean; silencing: boolean; onSilence(): void; onSilenced(s: Silence): void;
}) {
  const { alert } = props;
  const now = Date.now();
  const failed = props.deliveries?.filter((d) => d.status === 'failed') ?? [];
  const target = alert.key ? `${alert.key.model} (${keyContext(alert.key)})${alert.location ? ` from ${alert.location}` : ''}` : `operation ${alert.operation ?? '?'}`;
  return (
    <li className={`alert-item severity-${alert.severity}`} data-testid="alert" data-rule={alert.rule} data-fingerprint={alert.fingerprint}>
      <div className="alert-head">
        <span className="severity">{alert.severity}</span> <strong>{alert.rule}</strong> ·{' '}
        {alert.key ? <Link href={viewHref('/key', props.range, keyParams(alert.key))}>{target}</Link> : target}
        {alert.silenced ? <span className="silenced"> · silenced</span> : null}
      </div>
      <p>{alert.summary}</p>
      <p className="muted">
        {alert.verdict ? <VerdictBadge verdict={alert.verdict} hint={alert.hint} /> : null}{' '}
        {alert.state === 'firing' && alert.fired_at ? `firing for ${formatDuration(now - alert.fired_at)} (since ${formatDateTime(alert.fired_at)})` : null}
        {alert.state === 'pending' ? `pending since ${formatDateTime(alert.started_at)}` : null}
        {alert.state === 'resolved' && alert.resolved_at ? `resolved ${formatDateTime(alert.resolved_at)} after ${formatDuration(alert.resolved_at - (alert.fired_at ?? alert.started_at))}` : null}
      </p>
      {props.deliveries ? (
        <p className="deliveries">
          Notifications: {props.deliveries.length === 0 ? 'none sent' : `${props.deliveries.length} (${props.deliveries.filter((d) => d.status === 'ok').length} delivered, ${failed.length} failed)`}
          {failed[0] ? <span className="bad"> — last failure: {failed[0].notifier}: {failed[0].error ?? `HTTP ${failed[0].http_status}`}</span> : null}
        </p>
      ) : null}
      {props.canAdmin && alert.state !== 'resolved' ? (
        <button type="button" onClick={props.onSilence} aria-expanded={props.silencing}>{props.silencing ? 'Close' : 'Silence…'}</button>
      ) : null}
      {props.silencing ? <SilenceForm alert={alert} onDone={props.onSilenced} onCancel={props.onSilence} /> : null}
    </li>
  );
}

function Silences({ silences, canAdmin, onExpire }: { silences: Silence[]; canAdmin: boolean; onExpire(s: Silence): void }) {
  return (
    <section aria-labelledby="silences-title" data-testid="silences">
      <h2 id="silences-title">Silences <span className="muted">({silences.filter((s) => s.state !== 'expired').length} active or pending)</span></h2>
      {silences.length === 0 ? <p className="muted">No silences.</p> : (
        <div className="table-wrap">
          <table>
            <thead><tr><th scope="col">matches</th><th scope="col">state</th><th scope="col">from</th><th scope="col">until</th><th scope="col">comment</th><th scope="col">by</th><th scope="col"><span className="sr-only">actions</span></th></tr></thead>
            <tbody>
              {silences.map((s) => (
                <tr key={s.id} data-testid="silence" data-state={s.state}>
                  <td>{s.matchers.map((m) => `${m.name}${m.regex ? '=~' : '='}${m.value}`).join(', ')}</td>
                  <td>{s.state}</td><td>{formatDateTime(s.starts_at)}</td><td>{formatDateTime(s.ends_at)}</td><td>{s.comment}</td><td>{s.created_by}</td>
                  <td>{canAdmin && s.state !== 'expired' ? <button type="button" onClick={() => onExpire(s)}>Expire</button> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

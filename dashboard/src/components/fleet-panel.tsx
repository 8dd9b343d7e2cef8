import { useState } from 'react';
import { api } from '../api/client.ts';
import { adminFailure, SubmitError, useSubmit } from '../api/use-submit.tsx';
import type { BreakerKey, FleetDecisionView, FleetListReply } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { keyParams } from '../format.ts';
import { formatDateTime } from '../time-range.ts';

const DRAIN_FOR = [
  { label: '15 minutes', s: 900 },
  { label: '1 hour', s: 3_600 },
  { label: '4 hours', s: 14_400 },
  { label: '24 hours', s: 86_400 },
];

const KIND_TEXT: Record<FleetDecisionView['kind'], string> = {
  outage: 'fleet outage (breakers forced open)',
  recovered: 'fleet recovery (open breakers to half-open)',
  drain: 'drain (breakers forced open by on-call)',
  release: 'release (drain ended)',
};

/**
 * The key's fleet decisions (docs/fleet.md): when, why, until when, how many instances
 * applied each, and for admins the drain / release control that acts on every subscribed
 * SDK instance at once.
 */
export function FleetPanel({ fleetKey, canAdmin }: { fleetKey: BreakerKey; canAdmin: boolean }) {
  const polled = usePoll<FleetListReply>((signal) => api('GET /api/fleet', { query: keyParams(fleetKey), signal }), [JSON.stringify(fleetKey)]);
  const decisions = polled.data?.decisions ?? [];
  const drain = decisions.find((d) => d.kind === 'drain' && d.active);
  return (
    <section aria-labelledby="fleet-title" className="fleet-panel" data-testid="fleet-panel">
      <h2 id="fleet-title">Fleet decisions</h2>
      {polled.error && !polled.data ? <p className="muted">Fleet decisions unavailable: {polled.error.message}</p> : null}
      {decisions.length === 0 && polled.data ? <p className="muted">None in the last 7 days: no probe-confirmed outage and no drain of this key.</p> : null}
      {decisions.length ? (
        <div className="table-wrap">
          <table>
            <thead><tr><th scope="col">issued</th><th scope="col">decision</th><th scope="col">by</th><th scope="col">until</th><th scope="col">applied on</th><th scope="col">why</th></tr></thead>
            <tbody>
              {decisions.map((d) => (
                <tr key={d.id}>
                  <th scope="row">{formatDateTime(d.issued_at)}</th>
                  <td>{KIND_TEXT[d.kind]}{d.active ? ' · active' : ''}</td>
                  <td>{d.created_by ?? (d.origin === 'verdict' ? `verdict (${d.locations.join(', ')})` : d.origin)}</td>
                  <td>{d.ended_at ? `ended ${formatDateTime(d.ended_at)}${d.ended_by ? ` by ${d.ended_by}` : ''}` : formatDateTime(d.expires_at)}</td>
                  <td>{d.applied_instances} instance{d.applied_instances === 1 ? '' : 's'}</td>
                  <td>{d.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {canAdmin ? <FleetControl fleetKey={fleetKey} draining={drain !== undefined} onDone={polled.refresh} /> : <p className="muted">Draining a key fleet-wide needs a token with the <code>admin</code> right.</p>}
    </section>
  );
}

function FleetControl({ fleetKey, draining, onDone }: { fleetKey: BreakerKey; draining: boolean; onDone(): void }) {
  const [reason, setReason] = useState('');
  const [seconds, setSeconds] = useState(DRAIN_FOR[1]!.s);
  const { submit, busy, error } = useSubmit(async () => {
    if (draining) await api('POST /api/fleet/release', { body: { key: fleetKey, reason: reason.trim() } });
    else await api('POST /api/fleet/drain', { body: { key: fleetKey, reason: reason.trim(), expires_in_s: seconds } });
    setReason('');
    onDone();
  }, adminFailure('This needs a token with the admin right.', `Could not ${draining ? 'release' : 'drain'} the key`));
  return (
    <form className="fleet-form" onSubmit={submit} aria-label={draining ? 'Release the drain' : 'Drain this key fleet-wide'}>
      {draining ? null : (
        <label>
          Drain for{' '}
          <select value={seconds} onChange={(e) => setSeconds(Number(e.target.value))}>
            {DRAIN_FOR.map((d) => <option key={d.s} value={d.s}>{d.label}</option>)}
          </select>
        </label>
      )}
      <label className="comment">
        Reason (required)
        <input value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={1000} placeholder={draining ? 'e.g. provider fixed it' : 'e.g. wrong answers since 14:02, INC-123'} />
      </label>
      <SubmitError error={error} />
      <button type="submit" disabled={busy || reason.trim() === ''}>{busy ? 'Sending…' : draining ? 'Release drain' : 'Drain fleet-wide'}</button>
    </form>
  );
}

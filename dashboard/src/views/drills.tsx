import { useCallback, useState } from 'react';
import { api } from '../api/client.ts';
import { adminFailure, SubmitError, useSubmit } from '../api/use-submit.tsx';
import type { DrillKindName, DrillRunView } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { DrillReportView } from '../components/drill-report.tsx';

const KINDS: { kind: DrillKindName; label: string }[] = [
  { kind: 'rate_limit', label: '429 with retry-after' },
  { kind: 'slow_first_byte', label: 'first byte past the TTFT limit' },
  { kind: 'primary_down', label: 'primary refuses connections' },
  { kind: 'truncated', label: 'answer cut at max tokens' },
  { kind: 'field_renamed', label: 'structured output with a field renamed' },
  { kind: 'auth_revoked', label: '401/403 for the primary key' },
];

/** Starts a drill: the service, which drills, minutes each. */
function StartForm({ onStarted }: { onStarted(run: DrillRunView, sentTo: number): void }) {
  const [service, setService] = useState('');
  const [kinds, setKinds] = useState<DrillKindName[]>(KINDS.map((k) => k.kind));
  const [minutes, setMinutes] = useState(10);
  const { submit, busy, error } = useSubmit(async () => {
    const reply = await api('POST /api/drills', { body: { service: service.trim(), kinds, minutes } });
    onStarted(reply.run, reply.sent_to ?? 0);
  }, adminFailure('Starting a drill needs a token with the admin right.', 'Could not start the drill'));
  return (
    <form className="drill-form" onSubmit={submit} aria-label="Start a drill" data-testid="drill-form">
      <label>
        Service <input value={service} onChange={(e) => setService(e.target.value)} required maxLength={200} placeholder="e.g. ticket-drafts (staging)" />
      </label>
      <fieldset>
        <legend>Drills</legend>
        {KINDS.map((k) => (
          <label key={k.kind} className="matcher">
            <input type="checkbox" name={k.kind} checked={kinds.includes(k.kind)} onChange={(e) => setKinds(e.target.checked ? KINDS.map((x) => x.kind).filter((x) => x === k.kind || kinds.includes(x)) : kinds.filter((x) => x !== k.kind))} />{' '}
            <code>{k.kind}</code> <span className="muted">{k.label}</span>
          </label>
        ))}
      </fieldset>
      <label>
        Minutes each <input type="number" min={1} max={60} value={minutes} onChange={(e) => setMinutes(Number(e.target.value))} />
      </label>
      <SubmitError error={error} />
      <div className="form-actions">
        <button type="submit" disabled={busy || service.trim() === '' || kinds.length === 0}>{busy ? 'Starting…' : 'Start drill'}</button>
      </div>
    </form>
  );
}

/** One run: its state, a stop while it runs, and its report once judged. */
function RunItem({ run, onChanged }: { run: DrillRunView; onChanged(): void }) {
  const [error, setError] = useState<string | null>(null);
  const stop = async () => {
    try {
      await api('POST /api/drills/:id/stop', { params: { id: run.id } });
      onChanged();
    } catch (err) {
      setError(`Could not stop the drill: ${(err as Error).message}`);
    }
  };
  return (
    <li className="drill-run" data-testid="drill-run" data-id={run.id} data-status={run.status}>
      <div>
        <strong>{run.service}</strong> · {new Date(run.issued_at).toLocaleString()} · {run.kinds.length} drill{run.kinds.length === 1 ? '' : 's'} × {Math.round(run.step_ms / 1000)} s ·{' '}
        <span data-testid="drill-status">{run.status === 'judging' ? 'ended, waiting for late telemetry' : run.status}</span>
        {run.stopped_at ? <span className="muted"> · stopped by {run.stopped_by ?? 'unknown'}</span> : null}
        {run.status === 'running' ? <> {' '}<button type="button" className="link-button" onClick={stop}>Stop</button></> : null}
      </div>
      <SubmitError error={error} />
      {run.report ? <DrillReportView report={run.report} /> : null}
    </li>
  );
}

/** The Drills page (admin): start a drill on a staging service, the runs and their reports. */
export default function Drills({ canAdmin }: { canAdmin: boolean }) {
  const load = useCallback((signal: AbortSignal) => api('GET /api/drills', { query: { limit: 20 }, signal }), []);
  const polled = usePoll(load, []);
  const [notice, setNotice] = useState<string | null>(null);
  if (!canAdmin) {
    return (
      <section aria-labelledby="drills-title">
        <h1 id="drills-title">Drills</h1>
        <p className="muted">Failure drills need a token with the <code>admin</code> right; this session can only read.</p>
      </section>
    );
  }
  const runs = polled.data?.runs ?? [];
  return (
    <section className="drills-view" aria-labelledby="drills-title">
      <div className="view-head"><h1 id="drills-title">Drills</h1></div>
      <p className="muted">Rehearse the six failures on a staging service whose SDK instances enabled drills; each report is compared with the service's previous drill. Drill traffic never reaches the real verdicts, alerts or cost.</p>
      <StartForm onStarted={(run, sentTo) => { setNotice(`Drill started on ${run.service}: sent to ${sentTo} feed(s) of this collector.`); polled.refresh(); }} />
      {notice ? <p className="notice" role="status">{notice}</p> : null}
      {polled.error && !polled.data ? <p className="error-panel" role="alert">Could not load drills: {polled.error.message}</p> : null}
      <h2>Runs <span className="muted">({runs.length})</span></h2>
      {runs.length === 0 && !polled.loading ? <p className="muted">No drill has run yet.</p> : (
        <ul className="drill-runs">{runs.map((r) => <RunItem key={r.id} run={r} onChanged={polled.refresh} />)}</ul>
      )}
    </section>
  );
}

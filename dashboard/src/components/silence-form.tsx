import { useState } from 'react';
import { api } from '../api/client.ts';
import { adminFailure, SubmitError, useSubmit } from '../api/use-submit.tsx';
import type { Alert, Matcher, Silence } from '../api/types.ts';

const DURATIONS = [
  { label: '1 hour', ms: 3_600_000 },
  { label: '2 hours', ms: 7_200_000 },
  { label: '4 hours', ms: 14_400_000 },
  { label: '8 hours', ms: 28_800_000 },
  { label: '24 hours', ms: 86_400_000 },
];

/** The matchers that pin a silence to this alert: its rule, key fields, location, operation. */
export function matchersFor(alert: Alert): Matcher[] {
  const matchers: Matcher[] = [{ name: 'rule', value: alert.rule }];
  if (alert.key) {
    matchers.push({ name: 'provider', value: alert.key.provider }, { name: 'endpoint', value: alert.key.endpoint }, { name: 'model', value: alert.key.model });
    if (alert.key.region) matchers.push({ name: 'region', value: alert.key.region });
  }
  if (alert.location) matchers.push({ name: 'location', value: alert.location });
  if (alert.operation) matchers.push({ name: 'operation', value: alert.operation });
  return matchers;
}

/**
 * Creates a silence from an alert: its matchers (each can be dropped to widen the silence),
 * a duration and a required comment.
 */
export function SilenceForm({ alert, onDone, onCancel }: { alert: Alert; onDone(silence: Silence): void; onCancel(): void }) {
  const all = matchersFor(alert);
  const [kept, setKept] = useState(() => all.map(() => true));
  const [duration, setDuration] = useState(DURATIONS[0]!.ms);
  const [comment, setComment] = useState('');
  const matchers = all.filter((_, i) => kept[i]);
  const { submit, busy, error } = useSubmit(async () => {
    const reply = await api('POST /api/silences', {
      body: { matchers, ends_at: Date.now() + duration, comment: comment.trim() },
    });
    onDone(reply.silence);
  }, adminFailure('Silencing needs a token with the admin right.', 'Could not create the silence'));

  return (
    <form className="silence-form" onSubmit={submit} aria-label={`Silence ${alert.rule}`} data-testid="silence-form">
      <fieldset>
        <legend>Matches alerts where</legend>
        {all.map((m, i) => (
          <label key={m.name} className="matcher">
            <input type="checkbox" checked={kept[i]} onChange={(e) => setKept(kept.map((k, j) => (j === i ? e.target.checked : k)))} />{' '}
            <code>{m.name}</code> = <code>{m.value}</code>
          </label>
        ))}
      </fieldset>
      <label>
        For{' '}
        <select value={duration} onChange={(e) => setDuration(Number(e.target.value))}>
          {DURATIONS.map((d) => <option key={d.ms} value={d.ms}>{d.label}</option>)}
        </select>
      </label>
      <label className="comment">
        Comment (required)
        <textarea value={comment} onChange={(e) => setComment(e.target.value)} required maxLength={1000} rows={2} placeholder="e.g. provider incident INC-123, failover in place" />
      </label>
      <SubmitError error={error} />
      <div className="form-actions">
        <button type="submit" disabled={busy || matchers.length === 0 || comment.trim() === ''}>{busy ? 'Creating…' : 'Create silence'}</button>
        <button type="button" className="link-button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

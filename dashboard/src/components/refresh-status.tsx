import { useEffect, useState } from 'react';
import type { Polled } from '../api/use-poll.ts';
import { formatTime } from '../time-range.ts';

/** Re-renders every second so "12 s ago" stays true. */
function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * When the view last refreshed, or — when refreshes fail — that the server stopped
 * answering, since when, and how old the data on screen is. Announced to screen readers.
 */
export function RefreshStatus({ polled }: { polled: Pick<Polled<unknown>, 'updatedAt' | 'error' | 'failingSince' | 'loading' | 'refresh'> }) {
  const now = useNow();
  const { updatedAt, error, failingSince } = polled;
  if (error && (error.kind === 'unreachable' || error.kind === 'server')) {
    const down = error.kind === 'unreachable';
    return (
      <div className="refresh-status refresh-failing" role="alert" data-testid="server-down">
        <span aria-hidden="true">⚠</span>{' '}
        <strong>{down ? 'The server stopped answering' : 'The server is failing'}</strong>
        {failingSince ? ` since ${formatTime(failingSince)}` : ''} ({error.message}).{' '}
        {updatedAt ? `What you see is from ${formatTime(updatedAt)}, ${Math.round((now - updatedAt) / 1000)} s ago.` : 'Nothing loaded yet.'}{' '}
        Retrying every 10 s.{' '}
        <button type="button" className="link-button" onClick={polled.refresh}>Retry now</button>
      </div>
    );
  }
  if (!updatedAt) return <div className="refresh-status" aria-live="polite">{polled.loading ? 'Loading…' : ''}</div>;
  return (
    <div className="refresh-status" aria-live="off" data-testid="updated-at">
      Updated {formatTime(updatedAt)} ({Math.max(0, Math.round((now - updatedAt) / 1000))} s ago) · refreshes every 10 s
    </div>
  );
}

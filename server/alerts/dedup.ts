import type { GroupNotifyState, NotifyState } from '../storage/storage.ts';
import type { NotificationEvent } from '../notifiers/types.ts';
import type { AlertView } from './types.ts';

/** After a failed delivery, the next evaluation retries it no sooner than this. */
export const FAILED_RETRY_MS = 60_000;

/** What a dedup decision reads of a notifier and the alerts config. */
export interface DedupOptions {
  repeatMs: number;
  sendResolved: boolean;
  /** Grouped only: a first page waiting for requested probes holds this long after it fired (group_wait). */
  groupWaitMs: number;
  /** Grouped only: an update when the group changed, at most this often (group_interval). */
  groupIntervalMs: number;
}

const retryLater = (st: { last_status: 'ok' | 'failed'; last_attempt_at: number } | undefined, now: number, repeatMs: number) =>
  st?.last_status === 'failed' && now - st.last_attempt_at < Math.min(FAILED_RETRY_MS, repeatMs);

/**
 * Stage 5, pure, per alert (Alertmanager notifiers, which group themselves): the one event
 * the notifier is owed now given what it was last told, or null — a first `firing`, a
 * `repeat` every repeat interval, one `resolved` after a firing one; a failed delivery is
 * retried no sooner than a minute.
 */
export function alertEvent(alert: Pick<AlertView, 'state'>, st: NotifyState | undefined, now: number, o: Pick<DedupOptions, 'repeatMs' | 'sendResolved'>): NotificationEvent | null {
  if (retryLater(st, now, o.repeatMs)) return null;
  if (alert.state === 'firing') {
    if (!st?.last_event) return 'firing';
    if (st.last_event !== 'resolved' && now - (st.last_sent_at ?? 0) >= o.repeatMs) return 'repeat';
    return null;
  }
  if (alert.state === 'resolved' && o.sendResolved && (st?.last_event === 'firing' || st?.last_event === 'repeat')) return 'resolved';
  return null;
}

/** One notification group as a notifier sees it this pass. */
export interface GroupSnapshot {
  firing: AlertView[];
  resolved: AlertView[];
  /** Firing alerts left out because a silence matches them. */
  silenced: number;
  /** What the group looks like (its alerts and incident verdict); a change is an `update`. */
  digest: string;
}

/**
 * Stage 5, pure, per group (the other notifiers): one page when a group first fires, an
 * `update` when its digest changed (at most every group interval), a `repeat` every repeat
 * interval, one `resolved` at the end. A group whose firing alerts are all silenced sends
 * nothing, not even a resolve notice; a first page whose verdict waits for requested probes
 * (`probes_pending`) holds until group_wait has passed since it fired.
 */
export function groupEvent(g: GroupSnapshot, st: GroupNotifyState | undefined, now: number, o: DedupOptions): NotificationEvent | null {
  if (g.silenced > 0 && g.firing.length === 0) return null;
  if (retryLater(st, now, o.repeatMs)) return null;
  const open = st?.last_event === 'firing' || st?.last_event === 'update' || st?.last_event === 'repeat';
  if (g.firing.length > 0) {
    if (!open && g.firing.some((a) => a.hint === 'probes_pending')) {
      const firedAt = Math.min(...g.firing.map((a) => a.fired_at ?? now));
      if (now - firedAt < o.groupWaitMs) return null;
    }
    if (!open) return 'firing';
    if (st!.digest !== g.digest && now - (st!.last_sent_at ?? 0) >= o.groupIntervalMs) return 'update';
    if (now - (st!.last_sent_at ?? 0) >= o.repeatMs) return 'repeat';
    return null;
  }
  return open && g.resolved.length > 0 && o.sendResolved ? 'resolved' : null;
}

import type { Static } from '@sinclair/typebox';
import type { Delivery, NotificationEvent as NotificationEventSchema } from '../../schemas/alerts.ts';

/** What a per-alert notifier (Alertmanager) was last told about an alert. */
export interface NotifyState {
  last_event: 'firing' | 'repeat' | 'resolved' | null;
  last_sent_at: number | null;
  last_attempt_at: number;
  last_status: 'ok' | 'failed';
}

/**
 * What a notification is about: a first page, a change in its group, a reminder, the end —
 * as the API's schema declares it (one definition); storage records it and the notifiers
 * import it from here.
 */
export type NotificationEvent = Static<typeof NotificationEventSchema>;

/** What a notifier was last told about a notification group. */
export type GroupNotifyState = Omit<NotifyState, 'last_event'> & { last_event: NotificationEvent | null; digest: string | null };

/**
 * What a notifier was told by a finished delivery: the group's (or, for per-alert notifiers,
 * the alert's) notify state to record with it. `ok` false records only the failed attempt.
 */
export type NotifierTold =
  | { scope: 'group'; groupKey: string; notifier: string; event: NotificationEvent; ok: boolean; at: number; digest: string }
  | { scope: 'alert'; alertId: number; notifier: string; event: NotifyState['last_event']; ok: boolean; at: number };

/** One recorded delivery: the row `GET /api/notifications` lists, as its schema declares it. */
export type { Delivery } from '../../schemas/alerts.ts';

/**
 * Notification state and delivery records. The dedup keys are (group key, notifier) for
 * grouped notifiers and (alert id, notifier) for per-alert ones: they live in storage, not
 * in the process, so whichever collector evaluates next knows what was already sent.
 */
export interface NotificationsPart {
  /** What `notifier` was last told about group `groupKey`, or undefined when never. */
  groupState(groupKey: string, notifier: string): Promise<GroupNotifyState | undefined>;
  /** Records a finished group delivery: ok sets event, sent time and digest; a failure keeps them and records the attempt. */
  recordGroup(groupKey: string, notifier: string, event: NotificationEvent, ok: boolean, at: number, digest: string): Promise<void>;
  /** What `notifier` was last told about alert `alertId`, or undefined when never. */
  alertState(alertId: number, notifier: string): Promise<NotifyState | undefined>;
  /** Records a finished per-alert delivery (as `recordGroup`). */
  recordAlert(alertId: number, notifier: string, event: NotifyState['last_event'], ok: boolean, at: number): Promise<void>;
  /** Records a delivery as pending when it is queued; resolves to its id. */
  startDelivery(d: Pick<Delivery, 'notifier' | 'type' | 'alert_id' | 'fingerprint' | 'rule' | 'group_key' | 'event' | 'created_at'>): Promise<number>;
  /**
   * Records how a delivery ended and, in the same transaction, what its notifier was told:
   * a collector killed between two separate writes would leave a sent page recorded as
   * delivered but not as told, and the next leader would page it again.
   */
  finishDelivery(id: number, d: Pick<Delivery, 'status' | 'attempts' | 'http_status' | 'error' | 'finished_at'>, told?: NotifierTold): Promise<void>;
  /** Deliveries newest first (by id), at most `limit`, filtered by notifier, status, and alert fingerprint or group key. */
  deliveries(options: { limit: number; notifier?: string; status?: string; fingerprint?: string }): Promise<Delivery[]>;
  /** Marks deliveries a previous process left pending as failed ("abandoned"); called once at start. */
  failAbandoned(now: number): Promise<void>;
}

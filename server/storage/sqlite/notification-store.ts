import type { Db } from './database.ts';
import type { Delivery, GroupNotifyState, NotificationsPart, NotifierTold, NotifyState } from '../parts/notifications.ts';
import type { SyncPart } from './sync-part.ts';

/** Creates the notifications part: group and per-alert notify state, and delivery records. */
export function createNotificationStore(db: Db): SyncPart<NotificationsPart> {
  const s = {
    groupGet: db.prepare('SELECT last_event, last_sent_at, last_attempt_at, last_status, digest FROM incident_notifications WHERE group_key = ? AND notifier = ?'),
    groupOk: db.prepare(`INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
      VALUES (?, ?, ?, ?, ?, 'ok', ?) ON CONFLICT (group_key, notifier) DO UPDATE SET last_event = excluded.last_event,
      last_sent_at = excluded.last_sent_at, last_attempt_at = excluded.last_attempt_at, last_status = 'ok', digest = excluded.digest`),
    groupFailed: db.prepare(`INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
      VALUES (?, ?, NULL, NULL, ?, 'failed', NULL) ON CONFLICT (group_key, notifier) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_status = 'failed'`),
    notifyGet: db.prepare('SELECT last_event, last_sent_at, last_attempt_at, last_status FROM alert_notifications WHERE alert_id = ? AND notifier = ?'),
    notifyOk: db.prepare(`INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
      VALUES (?, ?, ?, ?, ?, 'ok') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_event = excluded.last_event,
      last_sent_at = excluded.last_sent_at, last_attempt_at = excluded.last_attempt_at, last_status = 'ok'`),
    notifyFailed: db.prepare(`INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
      VALUES (?, ?, NULL, NULL, ?, 'failed') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_status = 'failed'`),
    insert: db.prepare(`INSERT INTO notification_deliveries (notifier, type, alert_id, fingerprint, rule, group_key, event, status, created_at)
      VALUES (@notifier, @type, @alert_id, @fingerprint, @rule, @group_key, @event, 'pending', @created_at)`),
    finish: db.prepare(`UPDATE notification_deliveries SET status = @status, attempts = @attempts, http_status = @http_status,
      error = @error, finished_at = @finished_at WHERE id = @id`),
    abandoned: db.prepare(`UPDATE notification_deliveries SET status = 'failed', error = 'abandoned: the collector stopped', finished_at = ?
      WHERE status = 'pending'`),
  };
  // One statement per filter combination (eight at most), prepared on first use.
  const lists = new Map<string, ReturnType<typeof db.prepare<unknown[]>>>();
  const record = (t: NotifierTold) => {
    if (t.scope === 'group') {
      if (t.ok) s.groupOk.run(t.groupKey, t.notifier, t.event, t.at, t.at, t.digest);
      else s.groupFailed.run(t.groupKey, t.notifier, t.at);
    } else if (t.ok) s.notifyOk.run(t.alertId, t.notifier, t.event, t.at, t.at);
    else s.notifyFailed.run(t.alertId, t.notifier, t.at);
  };
  const finish = db.transaction((id: number, d: Parameters<NotificationsPart['finishDelivery']>[1], told: NotifierTold | undefined) => {
    s.finish.run({ id, ...d });
    if (told) record(told);
  });
  return {
    groupState: (groupKey, notifier) => s.groupGet.get(groupKey, notifier) as GroupNotifyState | undefined,
    recordGroup: (groupKey, notifier, event, ok, at, digest) => record({ scope: 'group', groupKey, notifier, event, ok, at, digest }),
    alertState: (alertId, notifier) => s.notifyGet.get(alertId, notifier) as NotifyState | undefined,
    recordAlert: (alertId, notifier, event, ok, at) => record({ scope: 'alert', alertId, notifier, event, ok, at }),
    startDelivery: (d) => Number(s.insert.run(d).lastInsertRowid),
    finishDelivery: (id, d, told) => finish(id, d, told),
    deliveries({ limit, notifier, status, fingerprint }) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (notifier) (where.push('notifier = ?'), args.push(notifier));
      if (status) (where.push('status = ?'), args.push(status));
      if (fingerprint) (where.push('(fingerprint = ? OR group_key = ?)'), args.push(fingerprint, fingerprint));
      const sql = `SELECT * FROM notification_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
      let st = lists.get(sql);
      if (!st) lists.set(sql, (st = db.prepare<unknown[]>(sql)));
      return st.all(...args, limit) as Delivery[];
    },
    failAbandoned: (now) => void s.abandoned.run(now),
  };
}

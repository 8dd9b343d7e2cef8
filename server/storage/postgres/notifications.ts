import type { Delivery, GroupNotifyState, NotificationsPart, NotifierTold, NotifyState } from '../parts/notifications.ts';
import { inTransaction, type PgClient, type PgPool } from './pool.ts';

const SQL = {
  groupGet: 'SELECT last_event, last_sent_at, last_attempt_at, last_status, digest FROM incident_notifications WHERE group_key = $1 AND notifier = $2',
  groupOk: `INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
    VALUES ($1, $2, $3, $4, $4, 'ok', $5) ON CONFLICT (group_key, notifier) DO UPDATE SET last_event = EXCLUDED.last_event,
    last_sent_at = EXCLUDED.last_sent_at, last_attempt_at = EXCLUDED.last_attempt_at, last_status = 'ok', digest = EXCLUDED.digest`,
  groupFailed: `INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
    VALUES ($1, $2, NULL, NULL, $3, 'failed', NULL) ON CONFLICT (group_key, notifier) DO UPDATE SET last_attempt_at = EXCLUDED.last_attempt_at, last_status = 'failed'`,
  notifyGet: 'SELECT last_event, last_sent_at, last_attempt_at, last_status FROM alert_notifications WHERE alert_id = $1 AND notifier = $2',
  notifyOk: `INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
    VALUES ($1, $2, $3, $4, $4, 'ok') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_event = EXCLUDED.last_event,
    last_sent_at = EXCLUDED.last_sent_at, last_attempt_at = EXCLUDED.last_attempt_at, last_status = 'ok'`,
  notifyFailed: `INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
    VALUES ($1, $2, NULL, NULL, $3, 'failed') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_attempt_at = EXCLUDED.last_attempt_at, last_status = 'failed'`,
  insert: `INSERT INTO notification_deliveries (notifier, type, alert_id, fingerprint, rule, group_key, event, status, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8) RETURNING id`,
  finish: 'UPDATE notification_deliveries SET status = $2, attempts = $3, http_status = $4, error = $5, finished_at = $6 WHERE id = $1',
  abandoned: `UPDATE notification_deliveries SET status = 'failed', error = 'abandoned: the collector stopped', finished_at = $1 WHERE status = 'pending'`,
};

/**
 * Notification state on PostgreSQL: the dedup keys — (group key, notifier) and (alert id,
 * notifier) — are rows every collector reads, so a collector that takes over the leader
 * lease knows what its predecessor already paged and does not page it again.
 */
export function createPostgresNotifications(pool: PgPool): NotificationsPart {
  type Run = (name: string, text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
  const on = (db: PgPool | PgClient): Run => (name, text, values) => db.query({ name, text, values });
  const q = on(pool);
  const record = async (run: Run, t: NotifierTold) => {
    if (t.scope === 'group') {
      if (t.ok) await run('notify_group_ok', SQL.groupOk, [t.groupKey, t.notifier, t.event, t.at, t.digest]);
      else await run('notify_group_failed', SQL.groupFailed, [t.groupKey, t.notifier, t.at]);
    } else if (t.ok) await run('notify_alert_ok', SQL.notifyOk, [t.alertId, t.notifier, t.event, t.at]);
    else await run('notify_alert_failed', SQL.notifyFailed, [t.alertId, t.notifier, t.at]);
  };
  return {
    async groupState(groupKey, notifier) {
      return (await q('notify_group_get', SQL.groupGet, [groupKey, notifier])).rows[0] as GroupNotifyState | undefined;
    },
    recordGroup: (groupKey, notifier, event, ok, at, digest) => record(q, { scope: 'group', groupKey, notifier, event, ok, at, digest }),
    async alertState(alertId, notifier) {
      return (await q('notify_alert_get', SQL.notifyGet, [alertId, notifier])).rows[0] as NotifyState | undefined;
    },
    recordAlert: (alertId, notifier, event, ok, at) => record(q, { scope: 'alert', alertId, notifier, event, ok, at }),
    async startDelivery(d) {
      const { rows } = await q('delivery_start', SQL.insert, [d.notifier, d.type, d.alert_id, d.fingerprint, d.rule, d.group_key, d.event, d.created_at]);
      return (rows[0] as { id: number }).id;
    },
    async finishDelivery(id, d, told) {
      const values = [id, d.status, d.attempts, d.http_status, d.error, d.finished_at];
      if (!told) return void (await q('delivery_finish', SQL.finish, values));
      await inTransaction(pool, async (client) => {
        const run = on(client);
        await run('delivery_finish', SQL.finish, values);
        await record(run, told);
      });
    },
    async deliveries({ limit, notifier, status, fingerprint }) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (notifier) (args.push(notifier), where.push(`notifier = $${args.length}`));
      if (status) (args.push(status), where.push(`status = $${args.length}`));
      if (fingerprint) (args.push(fingerprint), where.push(`(fingerprint = $${args.length} OR group_key = $${args.length})`));
      args.push(limit);
      const text = `SELECT * FROM notification_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`;
      // One prepared statement per filter combination (eight at most).
      return (await pool.query({ name: `deliveries_${where.length}_${[notifier, status, fingerprint].map((x) => (x ? 1 : 0)).join('')}`, text, values: args })).rows as Delivery[];
    },
    async failAbandoned(now) {
      // With several collectors another one may have deliveries in flight: call this when gaining the leader lease, not at process start.
      await q('delivery_abandoned', SQL.abandoned, [now]);
    },
  };
}

import type { Db } from '../storage/database.ts';
import type { NotificationEvent } from './types.ts';

/** One recorded delivery (docs/api.md, `GET /api/notifications`). */
export interface Delivery {
  id: number;
  notifier: string;
  type: string;
  alert_id: number;
  fingerprint: string;
  rule: string;
  /** The notification group (incident id, or the alert's fingerprint). */
  group_key: string | null;
  event: NotificationEvent;
  status: 'pending' | 'ok' | 'failed';
  attempts: number;
  http_status: number | null;
  error: string | null;
  created_at: number;
  finished_at: number | null;
}

/** Delivery records: written when queued, updated when done. */
export interface DeliveryStore {
  start(d: Pick<Delivery, 'notifier' | 'type' | 'alert_id' | 'fingerprint' | 'rule' | 'group_key' | 'event' | 'created_at'>): number;
  finish(id: number, d: Pick<Delivery, 'status' | 'attempts' | 'http_status' | 'error' | 'finished_at'>): void;
  list(options: { limit: number; notifier?: string; status?: string; fingerprint?: string }): Delivery[];
  /** Deliveries left pending by a previous process: marked failed at start. */
  failAbandoned(now: number): void;
  prune(before: number): void;
}

/** Creates the delivery store. */
export function createDeliveryStore(db: Db): DeliveryStore {
  const insert = db.prepare(`INSERT INTO notification_deliveries (notifier, type, alert_id, fingerprint, rule, group_key, event, status, created_at)
    VALUES (@notifier, @type, @alert_id, @fingerprint, @rule, @group_key, @event, 'pending', @created_at)`);
  const finish = db.prepare(`UPDATE notification_deliveries SET status = @status, attempts = @attempts, http_status = @http_status,
    error = @error, finished_at = @finished_at WHERE id = @id`);
  const abandoned = db.prepare(`UPDATE notification_deliveries SET status = 'failed', error = 'abandoned: the collector stopped', finished_at = ?
    WHERE status = 'pending'`);
  const prune = db.prepare('DELETE FROM notification_deliveries WHERE created_at < ?');
  return {
    start: (d) => Number(insert.run(d).lastInsertRowid),
    finish: (id, d) => void finish.run({ id, ...d }),
    list({ limit, notifier, status, fingerprint }) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (notifier) (where.push('notifier = ?'), args.push(notifier));
      if (status) (where.push('status = ?'), args.push(status));
      if (fingerprint) (where.push('(fingerprint = ? OR group_key = ?)'), args.push(fingerprint, fingerprint));
      const sql = `SELECT * FROM notification_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
      return db.prepare(sql).all(...args, limit) as Delivery[];
    },
    failAbandoned: (now) => void abandoned.run(now),
    prune: (before) => void prune.run(before),
  };
}

import type { Db } from './database.ts';
import type { RetentionPart, RetentionPolicy } from '../parts/retention.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** One table's pruning rule: a statement deleting rows older than a cutoff, `limit` at a time when it takes one. */
interface PruneTarget {
  table: string;
  step: { run(...args: number[]): { changes: number } };
  cutoff(now: number): number;
  /** Deletes everything expired in one statement (small tables): no LIMIT parameter. */
  whole?: boolean;
}

/**
 * Creates the one pruner over every table. Big tables (events, minute rollups, batch ids)
 * are pruned at most `stepRows` rows per short transaction with a yield in between, so a
 * big backlog never holds the write lock long enough to stall ingest; the small ones
 * (hourly aggregates, alerts, silences, deliveries, sessions) in one statement each.
 * Resolved alerts lose their notification state before the alert rows themselves.
 */
export function createPruner(db: Db, policy: RetentionPolicy, options: { stepRows?: number } = {}): RetentionPart {
  const stepRows = options.stepRows ?? 2000;
  const raw = (now: number) => now - policy.rawDays * DAY;
  const rollup = (now: number) => now - policy.rollupDays * DAY;
  const hours = (now: number) => { const t = rollup(now); return t - (t % HOUR); };
  const history = (now: number) => now - policy.alertHistoryDays * DAY;
  const byRowid = (table: string, column: string) =>
    db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`);
  const byKey = (table: string, keyCols: string) =>
    db.prepare(`DELETE FROM ${table} WHERE (${keyCols}) IN (SELECT ${keyCols} FROM ${table} WHERE minute < ? LIMIT ?)`);
  const whole = (table: string, sql: string, cutoff: (now: number) => number): PruneTarget => ({ table, step: db.prepare(sql), cutoff, whole: true });

  const targets: PruneTarget[] = [
    { table: 'window_events', step: byRowid('window_events', 'end'), cutoff: raw },
    { table: 'transition_events', step: byRowid('transition_events', 'ts'), cutoff: raw },
    { table: 'task_events', step: byRowid('task_events', 'end'), cutoff: raw },
    { table: 'config_events', step: byRowid('config_events', 'ts'), cutoff: raw },
    { table: 'probe_events', step: byRowid('probe_events', 'ts'), cutoff: raw },
    { table: 'suspicions', step: byRowid('suspicions', 'triggered_at'), cutoff: raw },
    { table: 'probe_requests', step: byRowid('probe_requests', 'created_at'), cutoff: raw },
    { table: 'key_minutes', step: byKey('key_minutes', 'minute, key_id, service_id'), cutoff: rollup },
    { table: 'key_minute_sources', step: byKey('key_minute_sources', 'minute, key_id, source_id'), cutoff: rollup },
    { table: 'task_minutes', step: byKey('task_minutes', 'minute, operation, service_id'), cutoff: rollup },
    { table: 'task_key_minutes', step: byKey('task_key_minutes', 'minute, key_id, service_id'), cutoff: rollup },
    { table: 'probe_minutes', step: byKey('probe_minutes', 'minute, key_id, location'), cutoff: rollup },
    {
      table: 'batches',
      step: db.prepare('DELETE FROM batches WHERE batch_id IN (SELECT batch_id FROM batches WHERE received_at < ? LIMIT ?)'),
      cutoff: (now) => now - Math.max(24, policy.batchIdHours) * HOUR,
    },
    whole('key_hours', 'DELETE FROM key_hours WHERE hour < ?', hours),
    whole('key_hour_sources', 'DELETE FROM key_hour_sources WHERE hour < ?', hours),
    whole('probe_hours', 'DELETE FROM probe_hours WHERE hour < ?', hours),
    whole('rollup_hour_builds', 'DELETE FROM rollup_hour_builds WHERE hour < ?', hours),
    whole('rollup_hour_changes', 'DELETE FROM rollup_hour_changes WHERE hour < ?', hours),
    whole('alert_notifications', `DELETE FROM alert_notifications WHERE alert_id IN (SELECT id FROM alerts WHERE state = 'resolved' AND resolved_at < ?)`, history),
    whole('incident_notifications', `DELETE FROM incident_notifications WHERE last_event = 'resolved' AND last_attempt_at < ?`, history),
    whole('alerts', `DELETE FROM alerts WHERE state = 'resolved' AND resolved_at < ?`, history),
    whole('notification_deliveries', 'DELETE FROM notification_deliveries WHERE created_at < ?', history),
    whole('silences', 'DELETE FROM silences WHERE ends_at < ?', (now) => now - policy.silenceDays * DAY),
    // A session expires at its expires_at: nothing to keep after that.
    whole('sessions', 'DELETE FROM sessions WHERE expires_at <= ?', (now) => now),
  ];

  return {
    async prune(now) {
      const deleted: Record<string, number> = {};
      for (const target of targets) {
        const cutoff = target.cutoff(now);
        if (target.whole) {
          deleted[target.table] = target.step.run(cutoff).changes;
          continue;
        }
        let total = 0;
        for (;;) {
          const { changes } = target.step.run(cutoff, stepRows);
          total += changes;
          if (changes < stepRows) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        deleted[target.table] = total;
      }
      return { deleted };
    },
  };
}

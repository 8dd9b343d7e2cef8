import type { RetentionPart, RetentionPolicy } from '../parts/retention.ts';
import type { PgPool } from './pool.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

interface Target {
  table: string;
  sql: string;
  cutoff(now: number): number;
  /** One statement deletes everything expired (small tables): no LIMIT parameter. */
  whole?: boolean;
}

/**
 * The one pruner on PostgreSQL, the same rules as SQLite's (server/storage/sqlite/retention.ts):
 * big tables in steps of `stepRows` rows (by ctid) per short statement, small ones whole.
 * Only the collector holding the leader lease runs it, so retention runs once, not once per collector.
 */
export function createPostgresPruner(pool: PgPool, policy: RetentionPolicy, options: { stepRows?: number } = {}): RetentionPart {
  const stepRows = options.stepRows ?? 2000;
  const raw = (now: number) => now - policy.rawDays * DAY;
  const rollup = (now: number) => now - policy.rollupDays * DAY;
  const hours = (now: number) => { const t = rollup(now); return t - (t % HOUR); };
  const history = (now: number) => now - policy.alertHistoryDays * DAY;
  const stepped = (table: string, column: string, cutoff: (now: number) => number): Target => ({
    table, cutoff, sql: `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2))`,
  });
  const whole = (table: string, sql: string, cutoff: (now: number) => number): Target => ({ table, sql, cutoff, whole: true });

  const targets: Target[] = [
    stepped('window_events', '"end"', raw),
    stepped('transition_events', 'ts', raw),
    stepped('task_events', '"end"', raw),
    stepped('config_events', 'ts', raw),
    stepped('probe_events', 'ts', raw),
    stepped('suspicions', 'triggered_at', raw),
    stepped('probe_requests', 'created_at', raw),
    stepped('key_minutes', 'minute', rollup),
    stepped('key_minute_sources', 'minute', rollup),
    stepped('task_minutes', 'minute', rollup),
    stepped('task_key_minutes', 'minute', rollup),
    stepped('probe_minutes', 'minute', rollup),
    stepped('batches', 'received_at', (now) => now - Math.max(24, policy.batchIdHours) * HOUR),
    whole('key_hours', 'DELETE FROM key_hours WHERE hour < $1', hours),
    whole('key_hour_sources', 'DELETE FROM key_hour_sources WHERE hour < $1', hours),
    whole('probe_hours', 'DELETE FROM probe_hours WHERE hour < $1', hours),
    whole('rollup_hour_builds', 'DELETE FROM rollup_hour_builds WHERE hour < $1', hours),
    whole('rollup_hour_changes', 'DELETE FROM rollup_hour_changes WHERE hour < $1', hours),
    whole('alert_notifications', `DELETE FROM alert_notifications WHERE alert_id IN (SELECT id FROM alerts WHERE state = 'resolved' AND resolved_at < $1)`, history),
    whole('incident_notifications', `DELETE FROM incident_notifications WHERE last_event = 'resolved' AND last_attempt_at < $1`, history),
    whole('alerts', `DELETE FROM alerts WHERE state = 'resolved' AND resolved_at < $1`, history),
    whole('notification_deliveries', 'DELETE FROM notification_deliveries WHERE created_at < $1', history),
    whole('silences', 'DELETE FROM silences WHERE ends_at < $1', (now) => now - policy.silenceDays * DAY),
    whole('sessions', 'DELETE FROM sessions WHERE expires_at <= $1', (now) => now),
  ];

  return {
    async prune(now) {
      const deleted: Record<string, number> = {};
      for (const t of targets) {
        const cutoff = t.cutoff(now);
        if (t.whole) {
          deleted[t.table] = (await pool.query({ name: `prune_${t.table}`, text: t.sql, values: [cutoff] })).rowCount ?? 0;
          continue;
        }
        let total = 0;
        for (;;) {
          const changes = (await pool.query({ name: `prune_${t.table}`, text: t.sql, values: [cutoff, stepRows] })).rowCount ?? 0;
          total += changes;
          if (changes < stepRows) break;
        }
        deleted[t.table] = total;
      }
      return { deleted };
    },
  };
}

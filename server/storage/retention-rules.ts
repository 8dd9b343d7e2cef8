import type { RetentionPolicy, RetentionPart } from './parts/retention.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * One table's retention rule, engine-neutral: rows matching `where` (one `?`, the cutoff)
 * are deleted. `stepped` tables are big (events, minute rollups, batch ids) and pruned at
 * most a step of rows per statement; the rest in one statement.
 */
export interface PruneRule {
  table: string;
  /** A condition on the table's columns with one `?` for the cutoff; identifiers quoted for both engines. */
  where: string;
  cutoff(now: number): number;
  stepped: boolean;
  /** The primary key of a stepped minute table (SQLite deletes those by key, through its index). */
  key?: string;
}

/**
 * The retention rules of a policy, in the order they run: resolved alerts lose their
 * notification state before the alert rows themselves. Each engine's pruner turns them
 * into its own statements (server/storage/{sqlite,postgres}/retention.ts).
 */
export function pruneRules(policy: RetentionPolicy): PruneRule[] {
  const raw = (now: number) => now - policy.rawDays * DAY;
  const rollup = (now: number) => now - policy.rollupDays * DAY;
  const hours = (now: number) => {
    const t = rollup(now);
    return t - (t % HOUR);
  };
  const history = (now: number) => now - policy.alertHistoryDays * DAY;
  const older = (table: string, column: string, cutoff: (now: number) => number, key?: string): PruneRule =>
    ({ table, where: `${column} < ?`, cutoff, stepped: true, ...(key ? { key } : {}) });
  const whole = (table: string, where: string, cutoff: (now: number) => number): PruneRule => ({ table, where, cutoff, stepped: false });
  return [
    older('window_events', '"end"', raw),
    older('transition_events', 'ts', raw),
    older('task_events', '"end"', raw),
    older('config_events', 'ts', raw),
    older('probe_events', 'ts', raw),
    older('call_samples', 'ts', raw),
    older('suspicions', 'triggered_at', raw),
    older('probe_requests', 'created_at', raw),
    older('key_minutes', 'minute', rollup, 'minute, key_id, service_id'),
    older('key_minute_sources', 'minute', rollup, 'minute, key_id, source_id'),
    older('task_minutes', 'minute', rollup, 'minute, operation, service_id'),
    older('task_key_minutes', 'minute', rollup, 'minute, key_id, service_id'),
    older('probe_minutes', 'minute', rollup, 'minute, key_id, location'),
    older('shadow_windows', '"end"', rollup),
    older('passthrough_minutes', 'minute', rollup, 'minute, service_id, host, path_family, method'),
    older('batches', 'received_at', (now) => now - Math.max(24, policy.batchIdHours) * HOUR, 'batch_id'),
    whole('key_hours', 'hour < ?', hours),
    whole('key_hour_sources', 'hour < ?', hours),
    whole('probe_hours', 'hour < ?', hours),
    whole('rollup_hour_builds', 'hour < ?', hours),
    whole('rollup_hour_changes', 'hour < ?', hours),
    whole('alert_notifications', `alert_id IN (SELECT id FROM alerts WHERE state = 'resolved' AND resolved_at < ?)`, history),
    whole('incident_notifications', `last_event = 'resolved' AND last_attempt_at < ?`, history),
    whole('alerts', `state = 'resolved' AND resolved_at < ?`, history),
    whole('notification_deliveries', 'created_at < ?', history),
    // Drill traffic is judged when its run ends: a batch stays until its run has a report, however
    // short raw retention is set (a run lasts up to 6 h); then it goes with the raw events.
    whole('drill_batches', 'received_at < ? AND NOT EXISTS (SELECT 1 FROM drill_runs r WHERE r.id = drill_batches.drill_id AND r.report IS NULL)', raw),
    // Runs (and their reports) are kept as long as the rollups, counted from their end, so a
    // running one (its end still ahead) is never pruned.
    whole('drill_runs', 'ends_at < ?', rollup),
    // Fleet decisions, the audit trail of drains, as long as the rollups after they ended or
    // expired: a decision in force (not ended, expiring later) is never pruned.
    whole('fleet_decisions', 'COALESCE(ended_at, expires_at) < ?', rollup),
    whole('silences', 'ends_at < ?', (now) => now - policy.silenceDays * DAY),
    // A session expires at its expires_at: nothing to keep after that.
    whole('sessions', 'expires_at <= ?', (now) => now),
  ];
}

/** Deletes one step (`limit` rows at most) or, without a limit, everything a rule matches; resolves to the rows deleted. */
export type PruneStep = (rule: PruneRule, cutoff: number, limit?: number) => Promise<number> | number;

/**
 * The one pruner loop over the rules: stepped tables `stepRows` at a time, with a yield to
 * the event loop between steps, so a big backlog never holds the write lock long enough to
 * stall ingest.
 */
export function createRulePruner(rules: PruneRule[], step: PruneStep, stepRows: number): RetentionPart {
  return {
    async prune(now) {
      const deleted: Record<string, number> = {};
      for (const rule of rules) {
        const cutoff = rule.cutoff(now);
        if (!rule.stepped) {
          deleted[rule.table] = await step(rule, cutoff);
          continue;
        }
        let total = 0;
        for (;;) {
          const changes = await step(rule, cutoff, stepRows);
          total += changes;
          if (changes < stepRows) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        deleted[rule.table] = total;
      }
      return { deleted };
    },
  };
}

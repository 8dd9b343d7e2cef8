import type { Db } from './database.ts';

const DAY = 86_400_000;

/** How long each kind of data is kept. */
export interface RetentionPolicy {
  rawDays: number;
  rollupDays: number;
  /** Batch ids are remembered at least this long for idempotent retries. */
  batchIdHours: number;
}

/** One table's pruning rule: delete rows older than a cutoff, a few at a time. */
interface PruneTarget {
  table: string;
  step: { run(cutoff: number, limit: number): { changes: number } };
  cutoff(now: number): number;
}

/** Prunes expired rows in small steps. */
export interface Pruner {
  /** Runs one pruning pass to completion, yielding to the event loop between steps. */
  prune(now?: number): Promise<{ deleted: Record<string, number> }>;
}

/**
 * Creates the pruner. Each step deletes at most `stepRows` rows in its own short
 * transaction and then yields, so a big backlog of expired rows never holds the write
 * lock long enough to stall ingest.
 */
export function createPruner(db: Db, policy: RetentionPolicy, options: { stepRows?: number } = {}): Pruner {
  const stepRows = options.stepRows ?? 2000;
  const raw = (now: number) => now - policy.rawDays * DAY;
  const rollup = (now: number) => now - policy.rollupDays * DAY;
  const byRowid = (table: string, column: string) =>
    db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`);
  const byKey = (table: string, keyCols: string) =>
    db.prepare(`DELETE FROM ${table} WHERE (${keyCols}) IN (SELECT ${keyCols} FROM ${table} WHERE minute < ? LIMIT ?)`);

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
      cutoff: (now) => now - Math.max(24, policy.batchIdHours) * 3_600_000,
    },
  ];

  return {
    async prune(now = Date.now()) {
      const deleted: Record<string, number> = {};
      for (const target of targets) {
        const cutoff = target.cutoff(now);
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

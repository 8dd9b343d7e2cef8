import type { RetentionPart, RetentionPolicy } from '../parts/retention.ts';
import { createRulePruner, pruneRules, type PruneRule } from '../retention-rules.ts';
import { createChangeLogPruner } from './change-log.ts';
import type { PgPool } from './pool.ts';

/** The statement a rule becomes on PostgreSQL: stepped tables by ctid. */
function sqlOf(rule: PruneRule): string {
  const where = rule.where.replace('?', '$1');
  return rule.stepped
    ? `DELETE FROM ${rule.table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${rule.table} WHERE ${where} LIMIT $2))`
    : `DELETE FROM ${rule.table} WHERE ${where}`;
}

/**
 * The one pruner on PostgreSQL, the same rules as SQLite's (server/storage/retention-rules.ts):
 * big tables in steps of `stepRows` rows per short statement, small ones whole. Only the
 * collector holding the leader lease runs it, so retention runs once, not once per collector.
 */
export function createPostgresPruner(pool: PgPool, policy: RetentionPolicy, options: { stepRows?: number; changeLogKeepMs?: number } = {}): RetentionPart {
  const rules = pruneRules(policy);
  const texts = new Map(rules.map((rule) => [rule, sqlOf(rule)]));
  const rulePruner = createRulePruner(
    rules,
    async (rule, cutoff, limit) =>
      (await pool.query({ name: `prune_${rule.table}`, text: texts.get(rule)!, values: limit === undefined ? [cutoff] : [cutoff, limit] })).rowCount ?? 0,
    options.stepRows ?? 2000,
  );
  // Other collectors' feeds hear of the pruning through the change log, which is pruned here too.
  const changeLog = createChangeLogPruner(pool, options.changeLogKeepMs);
  return {
    async prune(now) {
      let result: Awaited<ReturnType<RetentionPart['prune']>> | undefined;
      try {
        return (result = await rulePruner.prune(now));
      } finally {
        // A run that failed part way may have deleted anything.
        await changeLog.afterPrune(now, result?.deleted ?? null);
      }
    },
  };
}

import type { Db } from './database.ts';
import type { RetentionPart, RetentionPolicy } from '../parts/retention.ts';
import { createRulePruner, pruneRules, type PruneRule } from '../retention-rules.ts';

/** The statement a rule becomes on SQLite: stepped tables by rowid, or by key through the primary key's index. */
function statementOf(db: Db, rule: PruneRule): { run(...args: number[]): { changes: number } } {
  if (!rule.stepped) return db.prepare(`DELETE FROM ${rule.table} WHERE ${rule.where}`);
  const id = rule.key ?? 'rowid';
  const target = rule.key?.includes(',') ? `(${id})` : id;
  return db.prepare(`DELETE FROM ${rule.table} WHERE ${target} IN (SELECT ${id} FROM ${rule.table} WHERE ${rule.where} LIMIT ?)`);
}

/**
 * Creates the one pruner over every table (the rules: server/storage/retention-rules.ts).
 * Big tables are pruned at most `stepRows` rows per short transaction; the small ones in
 * one statement each.
 */
export function createPruner(db: Db, policy: RetentionPolicy, options: { stepRows?: number } = {}): RetentionPart {
  const rules = pruneRules(policy);
  const statements = new Map(rules.map((rule) => [rule, statementOf(db, rule)]));
  return createRulePruner(
    rules,
    (rule, cutoff, limit) => (limit === undefined ? statements.get(rule)!.run(cutoff) : statements.get(rule)!.run(cutoff, limit)).changes,
    options.stepRows ?? 2000,
  );
}

import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';
import type { HourRollups } from './hour-rollups.ts';
import { createRollupReads, type RollupReads, type Row } from '../rollup-reads.ts';

/**
 * The rollup reads on SQLite (`server/storage/rollup-reads.ts`): each statement prepared
 * once, on first use, returning rows as arrays; a list is bound as JSON and read with
 * `json_each` (pairs as a JSON list of `[id, text]`); SQLite's text order is already binary.
 */
export function createRollupReader(db: Db, hours: HourRollups): RollupReads {
  const cache = new Map<string, Statement<unknown[]>>();
  return createRollupReads({
    all(sql, args) {
      let st = cache.get(sql);
      if (!st) cache.set(sql, (st = db.prepare<unknown[]>(sql).raw()));
      return st.all(...args) as Row[];
    },
    inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
    list: (ids) => JSON.stringify(ids),
    inPairs: (a, b) => `(${a}, ${b}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
    binary: (column) => column,
    plan: (first, end) => hours.plan(first, end),
  });
}

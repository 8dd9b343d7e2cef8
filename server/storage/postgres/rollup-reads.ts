import { createRollupReads, type RollupReads, type Row } from '../rollup-reads.ts';
import type { PostgresHourRollups } from './hour-rollups.ts';
import type { PgPool } from './pool.ts';

/**
 * The rollup reads on PostgreSQL (`server/storage/rollup-reads.ts`): `?` numbered as `$n`,
 * each statement named by its text so it is prepared once per connection, rows as arrays;
 * a list is bound as an array, pairs as a JSON list of `[id, text]`; text ordered `COLLATE "C"`, SQLite's binary order, whatever
 * the database's locale.
 */
export function createPostgresRollupReads(pool: PgPool, hours: PostgresHourRollups, now: () => number): RollupReads {
  const named = new Map<string, { name: string; text: string }>();
  return createRollupReads({
    async all(sql, args) {
      let st = named.get(sql);
      if (!st) {
        let n = 0;
        named.set(sql, (st = { name: `rollup_read_${named.size}`, text: sql.replace(/\?/g, () => `$${++n}`) }));
      }
      return (await pool.query<Row>({ ...st, values: args, rowMode: 'array' })).rows as unknown as Row[];
    },
    inList: (column) => `${column} = ANY(?::bigint[])`,
    list: (ids) => ids,
    inPairs: (a, b) => `(${a}, ${b}) IN (SELECT (e ->> 0)::bigint, e ->> 1 FROM jsonb_array_elements(?::jsonb) e)`,
    binary: (column) => `${column} COLLATE "C"`,
    plan: (first, end) => hours.plan(first, end, now()),
  });
}

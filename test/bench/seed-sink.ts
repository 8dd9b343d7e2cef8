/**
 * Where a benchmark writes its seed rows straight into the tables (below the storage
 * interface, to build a day of rollups in seconds), on either engine: better-sqlite3
 * prepared statements in one transaction, or `json_populate_recordset` INSERTs through `pg`
 * with the tables' row triggers switched off and their effect applied once per insert.
 */
import pg from 'pg';
import type { Db } from '../../server/storage/sqlite/database.ts';

/** Row writes for seeding; column names are the same on both engines. */
export interface SeedSink {
  /** Inserts one row and returns its `id`. */
  insertId(table: string, columns: string[], values: unknown[]): Promise<number>;
  /** Inserts many rows in one transaction. */
  insertRows(table: string, columns: string[], rows: unknown[][]): Promise<void>;
  /**
   * Runs `write` (many `insertRows` into `tables`) with the tables' secondary indexes
   * dropped, and builds them again after: cheaper than keeping them up to date row by row.
   */
  withoutIndexes(tables: string[], write: () => Promise<void>): Promise<void>;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

/** The SQLite connection behind a collector (`sqlOf(app)`), synchronous=OFF while seeding. */
export function sqliteSink(db: Db): SeedSink {
  db.pragma('synchronous = OFF'); // seeding only; the figures are reads
  const insert = (table: string, columns: string[]) =>
    db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return {
    insertId: async (table, columns, values) => Number(insert(table, columns).run(...values).lastInsertRowid),
    insertRows: async (table, columns, rows) => {
      const stmt = insert(table, columns);
      db.transaction(() => {
        for (const r of rows) stmt.run(...r);
      })();
    },
    withoutIndexes: (_tables, write) => write(), // SQLite builds its day in seconds with them
    count: async (table) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n,
    close: async () => {
      db.pragma('synchronous = FULL');
    },
  };
}

/** The trigger function of the rollup tables (migrations/postgres/031): each statement bumps each late hour's version by its late rows. */
const HOUR_BUMP = 'bump_rollup_hours';
const HOUR = 3_600_000;
/** The triggers' condition: a row of a minute more than 5 minutes before the wall clock. */
const LATE_MS = 300_000;

/**
 * A `pg` pool on the collector's PostgreSQL database.
 *
 * The rollup tables' late-write triggers bump `rollup_hour_changes` for every late row.
 * Before migration 031 they were row triggers: in one transaction of 60,000 rows every bump
 * walked the chain of that row's earlier versions, which made seeding an hour ten times
 * slower than the rows themselves (30 s instead of 3 s); 031 made them per statement. The
 * sink still switches the table's triggers off for its insert (its secondary indexes are
 * dropped too) and adds what they would have added, per hour, in the same transaction: the
 * tables end as SQLite's do with its triggers firing. A trigger it does not know stops it.
 * `triggers: 'fire'` leaves them on (the engines test compares the two).
 */
export function postgresSink(url: string, options: { triggers?: 'bulk' | 'fire' } = {}): SeedSink {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const triggered = new Map<string, boolean>();
  const hasHourBump = async (client: pg.PoolClient, table: string) => {
    let known = triggered.get(table);
    if (known === undefined) {
      const { rows } = await client.query<{ tgname: string; proname: string }>(
        'SELECT t.tgname, p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgrelid = $1::regclass AND NOT t.tgisinternal', [table]);
      const other = rows.find((r) => r.proname !== HOUR_BUMP);
      if (other) throw new Error(`seed-sink: ${table} has trigger ${other.tgname} (${other.proname}), whose effect the sink cannot reproduce`);
      triggered.set(table, (known = rows.length > 0));
    }
    return known;
  };
  /** What the triggers would have done for `rows`: one version per late row, on its hour. */
  const bumpHours = async (client: pg.PoolClient, columns: string[], rows: unknown[][]) => {
    const at = columns.indexOf('minute');
    if (at < 0) throw new Error('seed-sink: a table with hour triggers written without its minute column');
    const late = Date.now() - LATE_MS;
    const perHour = new Map<number, number>();
    for (const r of rows) {
      const minute = r[at] as number;
      if (minute < late) perHour.set(minute - (minute % HOUR), (perHour.get(minute - (minute % HOUR)) ?? 0) + 1);
    }
    if (perHour.size === 0) return;
    await client.query(`INSERT INTO rollup_hour_changes (hour, version) SELECT * FROM unnest($1::bigint[], $2::bigint[])
      ON CONFLICT (hour) DO UPDATE SET version = rollup_hour_changes.version + EXCLUDED.version`, [[...perHour.keys()], [...perHour.values()]]);
  };
  const values = (columns: string[], n: number) =>
    Array.from({ length: n }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
  return {
    insertId: async (table, columns, vals) =>
      Number((await pool.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values(columns, 1)} RETURNING id`, vals)).rows[0].id),
    insertRows: async (table, columns, rows) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const bump = options.triggers !== 'fire' && (await hasHourBump(client, table));
        if (bump) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
        // One JSON parameter per 20,000 rows, typed by the table itself: far cheaper to plan than a multi-row VALUES.
        for (let i = 0; i < rows.length; i += 20_000) {
          const json = JSON.stringify(rows.slice(i, i + 20_000).map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j]]))));
          await client.query(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${table}, $1::json)`, [json]);
        }
        if (bump) {
          await client.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
          await bumpHours(client, columns, rows);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    withoutIndexes: async (tables, write) => {
      // Secondary indexes only: primary keys and unique constraints stay (the upserts rely on them).
      // Measured on 6 h of the day at load ~3: 14-23 s with the drop and rebuild, 20 s keeping them.
      const { rows } = await pool.query<{ name: string; def: string }>(
        `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`, [tables]);
      for (const r of rows) await pool.query(`DROP INDEX ${r.name}`);
      try {
        await write();
      } finally {
        for (const r of rows) await pool.query(r.def);
      }
    },
    count: async (table) => Number((await pool.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0].n),
    close: () => pool.end(),
  };
}

/**
 * Where a benchmark writes its seed rows straight into the tables (below the storage
 * interface, to build a day of rollups in seconds), on either engine: better-sqlite3
 * prepared statements in one transaction, or `json_populate_recordset` INSERTs through `pg`.
 */
import pg from 'pg';
import type { Db } from '../../server/storage/sqlite/database.ts';

/** Row writes for seeding; column names are the same on both engines. */
export interface SeedSink {
  /** Inserts one row and returns its `id`. */
  insertId(table: string, columns: string[], values: unknown[]): Promise<number>;
  /** Inserts many rows in one transaction. */
  insertRows(table: string, columns: string[], rows: unknown[][]): Promise<void>;
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
    count: async (table) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n,
    close: async () => {
      db.pragma('synchronous = FULL');
    },
  };
}

/** A `pg` pool on the collector's PostgreSQL database. */
export function postgresSink(url: string): SeedSink {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const values = (columns: string[], n: number) =>
    Array.from({ length: n }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
  return {
    insertId: async (table, columns, vals) =>
      Number((await pool.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values(columns, 1)} RETURNING id`, vals)).rows[0].id),
    insertRows: async (table, columns, rows) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One JSON parameter per 20,000 rows, typed by the table itself: far cheaper to plan than a multi-row VALUES.
        for (let i = 0; i < rows.length; i += 20_000) {
          const json = JSON.stringify(rows.slice(i, i + 20_000).map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j]]))));
          await client.query(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${table}, $1::json)`, [json]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    count: async (table) => Number((await pool.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0].n),
    close: () => pool.end(),
  };
}

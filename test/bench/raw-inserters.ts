/**
 * The physical limit the ingest benchmark sets HTTP against, per engine: the same window
 * rows inserted straight into `window_events`, one transaction per batch, on a database
 * opened and migrated like the collector's — better-sqlite3 prepared statements for SQLite,
 * one multi-row `INSERT` per batch through `pg` for PostgreSQL.
 */
import { join } from 'node:path';
import pg from 'pg';
import type { WindowEvent } from '@breakerbox/protocol';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { applyPostgresMigrations } from '../../server/storage/postgres/migrations.ts';

/** Events done in a slice, its wall time and the CPU time the writer spent on them (the bench process for SQLite; PostgreSQL's own CPU is not counted). */
export interface Slice {
  events: number;
  seconds: number;
  cpu: number;
}

/** Inserts the given batches round-robin for `ms`. */
export interface RawInserter {
  run(ms: number): Promise<Slice>;
  close(): Promise<void>;
}

const COLUMNS = `key_id, source_id, start, "end", calls, ok, slow, errors, rejected, short_circuited, retries, cold_excluded,
  half_open_ok, half_open_failed, latency, ttft, input_tokens, output_tokens, cost_usd`;
const rowOf = (e: WindowEvent) => [1 + (e.calls % 200), 1, e.start, e.end, e.calls, e.ok, e.slow, JSON.stringify(e.errors), e.rejected,
  e.short_circuited, e.retries, e.cold_excluded, e.half_open.ok, e.half_open.failed,
  JSON.stringify(e.latency_ms), JSON.stringify(e.ttft_ms), e.input_tokens, e.output_tokens, e.cost_usd];
const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function timedLoop(ms: number, size: number, one: () => Promise<void> | void): Promise<Slice> {
  let done = 0;
  const started = performance.now();
  const cpu = ownCpuSeconds();
  while (performance.now() - started < ms) {
    await one();
    done++;
  }
  return { events: done * size, seconds: (performance.now() - started) / 1000, cpu: ownCpuSeconds() - cpu };
}

/** better-sqlite3 into `raw.db` in `dir` (WAL, synchronous=FULL, as the collector opens it). */
export function sqliteRawInserter(dir: string, batches: WindowEvent[][]): RawInserter {
  const db = openDatabase(join(dir, 'raw.db'));
  applyMigrations(db);
  const insert = db.prepare(`INSERT INTO window_events (${COLUMNS}) VALUES (${new Array(19).fill('?').join(', ')})`);
  const tx = db.transaction((rows: WindowEvent[]) => {
    for (const e of rows) insert.run(...rowOf(e));
  });
  let n = 0;
  return {
    run: (ms) => timedLoop(ms, batches[0]!.length, () => tx(batches[n++ % batches.length]!)),
    close: async () => {
      db.close();
    },
  };
}

/** `pg` into a migrated database at `url`: one multi-row INSERT per batch in its own transaction (a durable commit each). */
export async function postgresRawInserter(url: string, batches: WindowEvent[][]): Promise<RawInserter> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await applyPostgresMigrations(pool);
  const size = batches[0]!.length;
  const sql = `INSERT INTO window_events (${COLUMNS}) VALUES ${Array.from({ length: size }, (_, r) =>
    `(${Array.from({ length: 19 }, (_, c) => `$${r * 19 + c + 1}`).join(', ')})`).join(', ')}`;
  const params = batches.map((b) => b.flatMap(rowOf));
  const client = await pool.connect();
  let n = 0;
  return {
    run: (ms) => timedLoop(ms, size, async () => {
      await client.query('BEGIN');
      await client.query({ name: 'raw-windows', text: sql, values: params[n++ % params.length]! });
      await client.query('COMMIT');
    }),
    close: async () => {
      client.release();
      await pool.end();
    },
  };
}

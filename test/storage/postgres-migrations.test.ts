import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { MIGRATIONS_DIR } from '../../server/storage/migration-files.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { POSTGRES_MIGRATIONS_DIR, applyPostgresMigrations, postgresMigrationsUpToDate } from '../../server/storage/postgres/migrations.ts';
import { createPool, type PgPool } from '../../server/storage/postgres/pool.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';
import { tempDir } from '../server/helpers.ts';

const postgres = usePostgresCluster();

async function freshPool(): Promise<PgPool> {
  const pool = createPool(await postgres.database('migrations'));
  postgres.defer(() => pool.end());
  return pool;
}

function copyOfMigrations(): string {
  const tmp = tempDir();
  postgres.defer(tmp.cleanup);
  const dir = join(tmp.dir, 'postgres');
  cpSync(POSTGRES_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

describe.skipIf(!postgres.available)('PostgreSQL migrations', () => {
  it('has a translation of every SQLite migration, under the same number and name', () => {
    const sqlite = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{3}-.*\.sql$/.test(f)).sort();
    const postgres = readdirSync(POSTGRES_MIGRATIONS_DIR).filter((f) => /^\d{3}-.*\.sql$/.test(f)).sort();
    expect(postgres).toEqual(sqlite);
  });

  it('applies every file in order once and records it with a checksum', async () => {
    const pool = await freshPool();
    const first = await applyPostgresMigrations(pool);
    expect(first.applied[0]).toBe('001-initial.sql');
    const rows = (await pool.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations ORDER BY id')).rows;
    expect(rows.map((r) => r.name)).toEqual(first.applied);
    expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
    const second = await applyPostgresMigrations(pool);
    expect(second).toEqual({ applied: [], alreadyApplied: rows.length });
    expect(await postgresMigrationsUpToDate(pool)).toBe(true);
  });

  it('refuses to start when an applied migration file has changed', async () => {
    const pool = await freshPool();
    const dir = copyOfMigrations();
    await applyPostgresMigrations(pool, dir);
    const file = join(dir, '001-initial.sql');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n-- edited after it was applied\n`);
    await expect(applyPostgresMigrations(pool, dir)).rejects.toThrowError(/postgres\/001-initial\.sql.*restore the original file/);
  });

  it('migrates once when two collectors start together', async () => {
    const pool = await freshPool();
    const other = createPool(pool.options.connectionString!);
    postgres.defer(() => other.end());
    const [a, b] = await Promise.all([applyPostgresMigrations(pool), applyPostgresMigrations(other)]);
    const total = (await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM schema_migrations')).rows[0]!.n;
    expect([a.applied.length, b.applied.length].sort()).toEqual([0, total]);
    expect(a.alreadyApplied + b.alreadyApplied).toBe(total);
  });

  it('builds the same tables and columns as the SQLite migrations', async () => {
    const pool = await freshPool();
    await applyPostgresMigrations(pool);
    const tmp = tempDir();
    const db = openDatabase(join(tmp.dir, 'db.sqlite'));
    applyMigrations(db);
    const sqliteTables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    const sqliteColumns = Object.fromEntries(
      sqliteTables.map((t) => [t, (db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name).sort()]),
    );
    db.close();
    tmp.cleanup();
    const { rows } = await pool.query<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name",
    );
    const pgColumns: Record<string, string[]> = {};
    for (const r of rows) (pgColumns[r.table_name] ??= []).push(r.column_name);
    for (const t of Object.keys(pgColumns)) pgColumns[t]!.sort();
    expect(pgColumns).toEqual(sqliteColumns);
  });
});

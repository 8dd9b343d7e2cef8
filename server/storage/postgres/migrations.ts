import { join } from 'node:path';
import { BreakerboxError } from '../../errors.ts';
import { MIGRATIONS_DIR, assertUnchanged, readMigrations, type MigrationReport } from '../migration-files.ts';
import type { PgPool } from './pool.ts';

/** Where the PostgreSQL translations of the numbered migrations live. */
export const POSTGRES_MIGRATIONS_DIR = join(MIGRATIONS_DIR, 'postgres');

/**
 * Advisory lock key of the migration run (any fixed 64-bit number; this one spells "bbx-migr").
 * Two collectors starting together: the second waits for the first, then finds nothing to do.
 */
export const MIGRATION_LOCK_KEY = 0x6262782d6d696772n;

/**
 * Applies pending PostgreSQL migrations in order, each in its own transaction, recording name
 * and sha256 checksum in `schema_migrations` exactly as the SQLite runner does; an applied
 * migration whose file has changed stops everything (BB_ERR_STORE_MIGRATION_CHANGED). The
 * whole run holds a session advisory lock, so concurrent starters migrate once.
 */
export async function applyPostgresMigrations(pool: PgPool, dir = POSTGRES_MIGRATIONS_DIR, now = Date.now()): Promise<MigrationReport> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const rows = (await client.query<{ id: number; name: string; checksum: string }>('SELECT id, name, checksum FROM schema_migrations')).rows;
      const applied = new Map(rows.map((row) => [row.id, row]));
      const report: MigrationReport = { applied: [], alreadyApplied: 0 };
      for (const file of readMigrations(dir)) {
        const done = applied.get(file.id);
        if (done) {
          assertUnchanged(done, file, 'postgres/');
          report.alreadyApplied++;
          continue;
        }
        await client.query('BEGIN');
        try {
          await client.query(file.sql);
          await client.query('INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [file.id, file.name, file.checksum, now]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new BreakerboxError('BB_ERR_STORE_UNAVAILABLE', `migration postgres/${file.name} failed: ${(err as Error).message}`, { cause: err });
        }
        report.applied.push(file.name);
      }
      return report;
    } finally {
      // A connection that cannot unlock is dropped, which releases a session lock too.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => {
        broken = true;
      });
    }
  } finally {
    client.release(broken);
  }
}

/** True when every PostgreSQL migration file is recorded as applied (for `/readyz`). */
export async function postgresMigrationsUpToDate(pool: PgPool, dir = POSTGRES_MIGRATIONS_DIR): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM schema_migrations');
  return rows[0]!.n === readMigrations(dir).length;
}

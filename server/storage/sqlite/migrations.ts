import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.ts';
import { BreakerboxError } from '../../errors.ts';
import type { Db } from './database.ts';

/** Where the numbered `NNN-name.sql` files live. */
export const MIGRATIONS_DIR = join(packageRoot(), 'migrations');

/** A numbered migration file and the sha256 of its text. */
export interface MigrationFile {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

/** Reads `NNN-name.sql` files in numeric order. */
export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { id: Number(name.slice(0, 3)), name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Throws BB_ERR_STORE_MIGRATION_CHANGED when an applied migration's recorded name or checksum
 * differs from its file (both engines; `folder` prefixes the names in the message).
 */
export function assertUnchanged(done: { name: string; checksum: string }, file: MigrationFile, folder = ''): void {
  if (done.checksum === file.checksum && done.name === file.name) return;
  throw new BreakerboxError(
    'BB_ERR_STORE_MIGRATION_CHANGED',
    `migration ${folder}${done.name} was applied with checksum ${done.checksum.slice(0, 12)} but ${folder}${file.name} now has ${file.checksum.slice(0, 12)}; restore the original file and add a new migration instead`,
  );
}

/** What `applyMigrations` did. */
export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations in order, each in its own transaction, recording name and
 * checksum. An applied migration whose file has changed stops everything: silently running
 * on a schema that differs from the files is how data gets corrupted.
 */
export function applyMigrations(db: Db, dir = MIGRATIONS_DIR, now = Date.now()): MigrationReport {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Map(
    (db.prepare('SELECT id, name, checksum FROM schema_migrations').all() as { id: number; name: string; checksum: string }[]).map(
      (row) => [row.id, row],
    ),
  );
  const report: MigrationReport = { applied: [], alreadyApplied: 0 };
  const record = db.prepare('INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  for (const file of readMigrations(dir)) {
    const done = applied.get(file.id);
    if (done) {
      assertUnchanged(done, file);
      report.alreadyApplied++;
      continue;
    }
    db.transaction(() => {
      db.exec(file.sql);
      record.run(file.id, file.name, file.checksum, now);
    })();
    report.applied.push(file.name);
  }
  return report;
}

/** True when every migration file is recorded as applied (for `/readyz`). */
export function migrationsUpToDate(db: Db, dir = MIGRATIONS_DIR): boolean {
  const row = db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number };
  return row.n === readMigrations(dir).length;
}

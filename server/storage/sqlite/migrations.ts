import { MIGRATIONS_DIR, assertUnchanged, readMigrations, type MigrationReport } from '../migration-files.ts';
import type { Db } from './database.ts';

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

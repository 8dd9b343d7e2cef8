/**
 * The numbered migration files and the checks both engines make against them: read in
 * order with their checksums, and an applied migration whose file changed refused.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { BreakerboxError } from '../errors.ts';

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

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { explainOpenError } from './open-errors.ts';

/** The handle type every store function takes; never a module-level global. */
export type Db = Database.Database;

/** Writes page 1 inside a transaction that is rolled back: throws SQLITE_READONLY on a file that cannot be written. */
export function probeWrite(db: Db): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    db.pragma(`user_version = ${version}`);
  } finally {
    db.exec('ROLLBACK');
  }
}

/**
 * Opens (creating folders as needed) the SQLite file the collector writes through.
 * WAL lets readers run beside the one writer; synchronous=FULL makes an acknowledged
 * batch survive a power cut, not just a process crash (NORMAL in WAL only survives the latter).
 */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): Db {
  let db: Db | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      // Rollup and index pages of a busy ingest stay in memory between batches (32 MiB, not the 2 MiB default).
      db.pragma('cache_size = -32768');
      // SQLite opens a file it may not write read-only without a word; a rolled-back write says so now.
      probeWrite(db);
    }
    return db;
  } catch (err) {
    db?.close();
    throw explainOpenError(path, err);
  }
}

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** The handle type every store function takes; never a module-level global. */
export type Db = Database.Database;

/**
 * Opens (creating folders as needed) the SQLite file the collector writes through.
 * WAL lets readers run beside the one writer; synchronous=FULL makes an acknowledged
 * batch survive a power cut, not just a process crash (NORMAL in WAL only survives the latter).
 */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false });
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Rollup and index pages of a busy ingest stay in memory between batches (32 MiB, not the 2 MiB default).
    db.pragma('cache_size = -32768');
  }
  db.pragma('busy_timeout = 5000');
  return db;
}

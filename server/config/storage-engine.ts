import type { StorageEngine } from '../storage/storage.ts';

/** `BREAKERBOX_DB` names a PostgreSQL database when it is a `postgres://` (or `postgresql://`) URL, else a SQLite file. */
export function storageEngineOf(db: string): StorageEngine {
  return /^postgres(ql)?:\/\//i.test(db) ? 'postgres' : 'sqlite';
}

/** The URL with its password replaced, for log lines and error messages. */
export function redactDbUrl(db: string): string {
  if (storageEngineOf(db) !== 'postgres') return db;
  try {
    const url = new URL(db);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

import { BreakerboxError } from '../../errors.ts';

/**
 * Turns a failure to open or migrate the database into one line naming the file and what
 * to do, instead of a driver stack trace. Anything else is returned unchanged.
 */
export function explainOpenError(path: string, err: unknown): unknown {
  if (err instanceof BreakerboxError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM' || code === 'EACCES' || code === 'EROFS') {
    return new BreakerboxError(
      'BB_ERR_STORE_READONLY',
      `cannot write the database ${path} (${code}): give the collector's user write access to the file and its folder (SQLite creates ${path}-wal beside it), or set BREAKERBOX_DB to a writable path`,
      { cause: err },
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new BreakerboxError(
      'BB_ERR_STORE_CORRUPT',
      `${path} is not a usable SQLite database (${code}): restore it from a backup, or move it aside to start with an empty one`,
      { cause: err },
    );
  }
  return err;
}

import { accessSync, constants, statSync } from 'node:fs';
import type { Db } from './database.ts';

/** Why the database cannot take writes right now. */
export type DbFaultKind = 'deleted' | 'replaced' | 'unwritable' | 'disk_full' | 'io_error';

/** A storage fault as `/readyz` and the log report it. */
export interface DbFault {
  kind: DbFaultKind;
  /** One sentence for an operator: what happened and what to do. */
  reason: string;
  since: number;
}

/** What the ingest route asks before and after a write. */
export interface DbHealth {
  /** The current fault, after a fresh look at the file. */
  check(now: number): DbFault | null;
  /**
   * 0 when a write may be tried now; else seconds to answer in `Retry-After`. While a
   * fault only a write can clear (disk full) lasts, one write per retry period is let
   * through as a trial.
   */
  admit(now: number): number;
  /** Classifies a failed write; a storage fault is remembered and returned, else null. */
  writeFailed(err: unknown, now: number): DbFault | null;
  writeSucceeded(): void;
}

/** Options of `createDbHealth`. */
export interface DbHealthOptions {
  retryAfterS: number;
  /** Called once when a fault starts (with it) and once when it clears (with null). */
  onChange(fault: DbFault | null, previous: DbFault | null): void;
}

/** SQLite result codes that mean the storage, not the statement, failed. */
export function faultKindOf(err: unknown): DbFaultKind | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL') return 'disk_full';
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM') return 'unwritable';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'io_error';
  return null;
}

/**
 * Watches the collector's database file. SQLite keeps writing to an open file that was
 * deleted or replaced (the data then lives only in an unlinked inode and is lost at the
 * next start), and keeps answering after the disk fills until a commit fails: each of
 * these becomes a fault that ingest answers with 503 + Retry-After, so senders keep their
 * batches, and that `/readyz` reports. Faults clear on their own when the cause goes: the
 * original file back in place, write access back, a trial write that succeeds.
 */
export function createDbHealth(db: Db, path: string, options: DbHealthOptions): DbHealth {
  const memory = path === ':memory:' || db.memory;
  const original = memory ? null : statSync(path);
  // A fault seen on the file clears when the file is fine again; a write fault only by a write.
  let fromFile: DbFault | null = null;
  let fromWrite: DbFault | null = null;
  let reported: DbFault | null = null;
  let nextTrial = 0;

  const publish = () => {
    const next = fromFile ?? fromWrite;
    if (reported?.kind === next?.kind) return;
    const previous = reported;
    reported = next;
    options.onChange(next, previous);
  };

  const fileFault = (now: number): DbFault | null => {
    if (!original) return null;
    let current;
    try {
      current = statSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return { kind: 'deleted', reason: `the database file ${path} was deleted while the collector ran; new data would be lost at the next start`, since: now };
      }
      return { kind: 'unwritable', reason: `the database file ${path} cannot be checked (${(err as NodeJS.ErrnoException).code})`, since: now };
    }
    if (current.ino !== original.ino || current.dev !== original.dev) {
      return { kind: 'replaced', reason: `the database file ${path} was replaced by another file while the collector ran`, since: now };
    }
    try {
      accessSync(path, constants.W_OK);
    } catch {
      return { kind: 'unwritable', reason: `the database file ${path} is no longer writable by the collector (permissions or a read-only mount)`, since: now };
    }
    return null;
  };

  return {
    check(now) {
      const found = fileFault(now);
      fromFile = found && fromFile?.kind === found.kind ? fromFile : found;
      publish();
      return reported;
    },
    admit(now) {
      this.check(now);
      if (fromFile) return options.retryAfterS;
      if (fromWrite && now < nextTrial) return options.retryAfterS;
      if (fromWrite) nextTrial = now + options.retryAfterS * 1000;
      return 0;
    },
    writeFailed(err, now) {
      const kind = faultKindOf(err);
      if (!kind) return null;
      const code = (err as { code: string }).code;
      const reason =
        kind === 'disk_full'
          ? `the disk holding ${path} is full (${code}); free space and ingest resumes on its own`
          : kind === 'unwritable'
            ? `the database ${path} refused a write (${code}); restore write access and ingest resumes on its own`
            : `the database ${path} failed a write (${code}); check the disk`;
      nextTrial = now + options.retryAfterS * 1000;
      if (fromWrite?.kind !== kind) fromWrite = { kind, reason, since: now };
      publish();
      return reported;
    },
    writeSucceeded() {
      if (!fromWrite) return;
      fromWrite = null;
      publish();
    },
  };
}

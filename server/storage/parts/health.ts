/** Why the storage cannot take writes right now. */
export type StorageFaultKind = 'deleted' | 'replaced' | 'unwritable' | 'disk_full' | 'io_error' | 'unreachable';

/** A storage fault as `/readyz` and the log report it. */
export interface StorageFault {
  kind: StorageFaultKind;
  /** One sentence for an operator: what happened and what to do. */
  reason: string;
  since: number;
}

/** The storage's fault watch: ingest asks it before and after each write; `/readyz` asks `notReadyReason`. */
export interface HealthPart {
  /** The current fault, after a fresh look (the SQLite file; the PostgreSQL connection), or null. */
  check(now: number): Promise<StorageFault | null>;
  /**
   * 0 when a write may be tried now; else the seconds to answer in `Retry-After`. While a
   * fault only a write can clear (disk full) lasts, one write per retry period is let through.
   */
  admit(now: number): Promise<number>;
  /** Classifies a failed write: a storage fault is remembered and returned, anything else (a bug) gives null. */
  writeFailed(err: unknown, now: number): Promise<StorageFault | null>;
  /** A write succeeded: clears a fault only a write could clear. */
  writeSucceeded(): Promise<void>;
  /** Null when the storage takes writes and every migration is applied; else why not, in one sentence. */
  notReadyReason(now: number): Promise<string | null>;
}

/** What one kind of change-log row says was written (docs/verdict-engine.md, "Several collectors"). */
export type ChangeKind = 'key' | 'probe' | 'tasks' | 'prune' | 'prune_minutes' | 'hour' | 'suspicion';

/** What the shared change log says was written since the previous read, folded: per key (every transaction that wrote it), or per global kind. */
export interface ChangeRow {
  kind: ChangeKind;
  /** The key written (`key` and `probe` rows; `probe` when any of its writes held a probe result), as stored. */
  key: { provider: string; endpoint: string; model: string; region: string } | null;
  /** The earliest rollup minute the writes touched for the key. */
  minute: number | null;
  /** The latest event time written for the key. */
  ts: number | null;
}

/** What one read of the log returns. */
export interface ChangeLogRead {
  /** What was committed since the previous read (never missed; no transaction's rows twice). */
  rows: ChangeRow[];
  /**
   * The rows since the previous read may be incomplete: the log was pruned past this reader's
   * cursor (a long pause, a new process's first read). The reader must treat everything as changed.
   */
  reset: boolean;
}

/**
 * The change log every collector appends to in its write transactions, on PostgreSQL (on
 * SQLite the in-process feed sees every write: no log). One reader per process: it keeps its
 * cursor (the snapshot xmin of its previous read).
 */
export interface ChangeLogPart {
  read(): Promise<ChangeLogRead>;
}

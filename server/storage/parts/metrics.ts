import type { PassthroughTotalRow } from '../passthrough-rows.ts';

/** A key's labels as stored (region '' for none). */
export interface KeyLabelsRow {
  id: number;
  provider: string;
  endpoint: string;
  model: string;
  region: string;
}

/** One all-time totals row: its ids, then the counters in the table's column order. */
export interface TotalsRow {
  keyId: number;
  /** Service name (key totals) or probe location (probe totals). */
  part: string;
  values: number[];
}

/** Transitions of a key into a state for a reason, summed over services. */
export interface TransitionTotalsRow {
  keyId: number;
  toState: string;
  reason: string;
  transitions: number;
}

/** Task counters per operation and service (TASK_COLUMNS order). */
export interface TaskTotalsRow {
  operation: string;
  service: string;
  values: number[];
}

/** What `/metrics` reads: the all-time totals, page by page over key ids, and a few small tables. */
export interface MetricsPart {
  /** Keys with id above `afterId`, by id, at most `limit`. */
  keys(afterId: number, limit: number): Promise<KeyLabelsRow[]>;
  /** Key totals per key and service for keys in (afterId, toId], by key id then service id. */
  keyTotals(afterId: number, toId: number): Promise<TotalsRow[]>;
  /** Probe totals per key and location for keys in (afterId, toId], by key id then location. */
  probeTotals(afterId: number, toId: number): Promise<TotalsRow[]>;
  /** Transition totals for keys in (afterId, toId], by key id, state, reason. */
  transitionTotals(afterId: number, toId: number): Promise<TransitionTotalsRow[]>;
  /** Task totals per operation and service, by operation then service name. */
  taskTotals(): Promise<TaskTotalsRow[]>;
  /** All-time requests forwarded unprotected per service, host and path family, by those names (at most `MAX_PASSTHROUGH_ROWS`, the largest). */
  passthroughTotals(): Promise<PassthroughTotalRow[]>;
  /** Events each source reported having dropped (cumulative as the senders report them); non-zero only, by service, instance. */
  droppedEvents(): Promise<{ service: string; instance: string; dropped: number }[]>;
  /** Bytes the storage takes: the SQLite file and its WAL (0 in memory); PostgreSQL reports the database size as `database` and 0 WAL. */
  sizes(): Promise<{ database: number; wal: number }>;
}

/** How long each kind of data is kept. */
export interface RetentionPolicy {
  /** Raw events (windows, transitions, tasks, config, probes). */
  rawDays: number;
  /** Per-minute and hourly rollups. */
  rollupDays: number;
  /** Batch ids are remembered at least this long (never under 24 h) for idempotent retries. */
  batchIdHours: number;
  /** Resolved alerts, their notification state, and delivery records. */
  alertHistoryDays: number;
  /** Silences that ended this long ago. */
  silenceDays: number;
}

/** The one pruner: every expiry of every table lives here. */
export interface RetentionPart {
  /**
   * Runs one pass to completion at `now`: deletes what the policy says has expired
   * (events, rollups, hourly aggregates, batch ids, resolved alerts with their notification
   * state, ended silences, deliveries, expired sessions), a few thousand rows per short
   * transaction, yielding between steps so ingest never waits long. Resolves to the rows
   * deleted per table (tables with nothing to delete are listed with 0).
   */
  prune(now: number): Promise<{ deleted: Record<string, number> }>;
}

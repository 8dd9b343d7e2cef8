import type { BreakerKey, DrillKind, TelemetryEvent } from '@breakerbox/protocol';

/** A drill run as stored (docs/drills.md): one command sent to a service's instances, and its report once judged. */
export interface DrillRunRecord {
  id: string;
  service: string;
  kinds: DrillKind[];
  /** The drilled keys; null = every chain's primary. */
  keys: BreakerKey[] | null;
  stepMs: number;
  issuedAt: number;
  /** `issuedAt + kinds × stepMs`, or when it was stopped. */
  endsAt: number;
  stoppedAt: number | null;
  stoppedBy: string | null;
  createdBy: string | null;
  updatedAt: number;
  /** The report (JSON-able), once judged; null before. */
  report: unknown;
  judgedAt: number | null;
}

/** One accepted drill batch: who sent it, when it arrived, its events as sent. */
export interface DrillBatchRecord {
  service: string;
  instance: string;
  receivedAt: number;
  events: TelemetryEvent[];
}

/** Drill runs, their telemetry and reports. Any collector writes runs and batches; the leader judges. */
export interface DrillsPart {
  /** Stores a new run. */
  insertRun(r: DrillRunRecord): Promise<void>;
  /** Ends a run early at `now` (its end moves to `now`); false when it had ended or been stopped already. */
  stopRun(id: string, now: number, by: string | null): Promise<boolean>;
  /** One run, or null. */
  getRun(id: string): Promise<DrillRunRecord | null>;
  /** Runs newest first, of one service or all, at most `limit`. */
  listRuns(service: string | null, limit: number): Promise<DrillRunRecord[]>;
  /** Runs created or stopped at or after `since`, oldest change first (what the feeds poll). */
  changedSince(since: number): Promise<DrillRunRecord[]>;
  /** Runs without a report that ended at or before `endedBy`, oldest first. */
  unjudged(endedBy: number): Promise<DrillRunRecord[]>;
  /** Writes a run's report; false when it had one already (another judge was first). */
  saveReport(id: string, report: unknown, now: number): Promise<boolean>;
  /** The latest judged run of `service` issued before `before`, or null. */
  previousJudged(service: string, before: number): Promise<DrillRunRecord | null>;
  /** Stores one drill batch; false when this batch id was stored for this run already (a retry). */
  insertBatch(drillId: string, batchId: string, b: DrillBatchRecord): Promise<boolean>;
  /** Every batch of a run, in arrival order. */
  batches(drillId: string): Promise<DrillBatchRecord[]>;
  /** Runs without a report whose end is after `now`, oldest first. */
  running(now: number): Promise<DrillRunRecord[]>;
  /** Adds `feeds` to what collector `collector` sent run `drillId` to. */
  recordDelivery(drillId: string, collector: string, feeds: number, now: number): Promise<void>;
  /** Feeds a run was sent to, over every collector. */
  delivered(drillId: string): Promise<number>;
  /** Replaces collector `collector`'s feed counts by service (an empty map clears them). */
  writeFeeds(collector: string, feeds: ReadonlyMap<string, number>, now: number): Promise<void>;
  /** Feed counts by service written at or after `since` by collectors other than `except`. */
  feedsOf(since: number, except: string): Promise<Map<string, number>>;
}

import type { AlertsPart } from './parts/alerts.ts';
import type { EventsPart } from './parts/events.ts';
import type { HealthPart } from './parts/health.ts';
import type { MetricsPart } from './parts/metrics.ts';
import type { NotificationsPart } from './parts/notifications.ts';
import type { RetentionPart } from './parts/retention.ts';
import type { RollupsPart } from './parts/rollups.ts';
import type { SamplesPart } from './parts/samples.ts';
import type { SessionsPart } from './parts/sessions.ts';
import type { SilencesPart } from './parts/silences.ts';
import type { SuspicionsPart } from './parts/suspicions.ts';
import type { TelemetryPart } from './parts/telemetry.ts';
import type { TokensPart } from './parts/tokens.ts';
import type { LeaderLease } from './parts/lease.ts';
import type { FleetPart } from './parts/fleet.ts';
import type { DrillsPart } from './parts/drills.ts';
import type { ShadowPart } from './parts/shadow.ts';
import type { ChangeLogPart } from './parts/change-log.ts';

export type * from './parts/alerts.ts';
export type * from './parts/events.ts';
export type * from './parts/health.ts';
export type * from './parts/metrics.ts';
export type * from './parts/notifications.ts';
export type * from './parts/retention.ts';
export type * from './parts/rollups.ts';
export type * from './parts/samples.ts';
export type * from './parts/sessions.ts';
export * from './parts/silences.ts';
export type * from './parts/suspicions.ts';
export type * from './parts/telemetry.ts';
export * from './parts/tokens.ts';
export type * from './parts/fleet.ts';
export type * from './parts/drills.ts';
export type * from './parts/shadow.ts';
export type * from './parts/change-log.ts';
export type * from './parts/key-scope.ts';

/** The engines behind the interface. */
export type StorageEngine = 'sqlite' | 'postgres';

/**
 * Everything `server/` stores or reads, by domain. Nothing outside `server/storage/`
 * writes SQL: verdicts, alert rules, the alert engine, sessions, auth, notifiers, metrics
 * and ingest are logic over what these parts return. Every method is async so one set of
 * callers serves both engines (embedded SQLite, shared PostgreSQL); results are plain
 * records, maps and arrays, never rows of a driver.
 */
export interface Storage {
  readonly engine: StorageEngine;
  /** What opening the storage did to its schema: migrations applied now (by name) and already applied before. */
  readonly migrations: { applied: string[]; alreadyApplied: number };
  /** Ingest writes, and the keys, sources and services that reported. */
  readonly telemetry: TelemetryPart;
  /** Sums over the per-minute and hourly rollups; the hourly aggregation. */
  readonly rollups: RollupsPart;
  /** Reads of raw events: transitions, probes, config. */
  readonly events: EventsPart;
  /** Evidence samples of failed and slow calls (with the raw events' retention). */
  readonly samples: SamplesPart;
  /** Shadow traffic windows per primary -> candidate pair (with the rollups' retention). */
  readonly shadow: ShadowPart;
  /** Alert lifecycle rows. */
  readonly alerts: AlertsPart;
  /** Silences. */
  readonly silences: SilencesPart;
  /** Notification state (the dedup keys) and delivery records. */
  readonly notifications: NotificationsPart;
  /** Probe on suspicion: suspicions and the probe requests they queue. */
  readonly suspicions: SuspicionsPart;
  /** Dashboard sessions. */
  readonly sessions: SessionsPart;
  /** API tokens. */
  readonly tokens: TokensPart;
  /** Fleet decisions: what subscribed SDK instances are told (docs/fleet.md). */
  readonly fleet: FleetPart;
  /** Failure drills: runs, their telemetry kept apart from the real data, and reports (docs/drills.md). */
  readonly drills: DrillsPart;
  /** What `/metrics` reads. */
  readonly metrics: MetricsPart;
  /** The one pruner. */
  readonly retention: RetentionPart;
  /** Fault watch and readiness. */
  readonly health: HealthPart;
  /**
   * The change log every collector's write transactions append to (PostgreSQL only: several
   * collectors write; on SQLite the in-process feed sees every write). Read by the change feed.
   */
  readonly changeLog?: ChangeLogPart;
  /**
   * Which collector runs the once-per-fleet jobs (alert evaluation and notifications, hourly
   * aggregation, retention): always held on SQLite, an advisory lock on PostgreSQL.
   */
  readonly lease: LeaderLease;
  /** Waits for background work (checkpoints, a rescue copy) and closes every connection. */
  close(): Promise<void>;
}

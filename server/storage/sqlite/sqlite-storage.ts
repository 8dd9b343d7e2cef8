import type { Storage } from '../storage.ts';
import type { RetentionPolicy } from '../parts/retention.ts';
import type { StorageFault } from '../parts/health.ts';
import type { ServerClock } from '../../clock.ts';
import { openDatabase, type Db } from './database.ts';
import { applyMigrations, migrationsUpToDate } from './migrations.ts';
import type { MigrationReport } from '../migration-files.ts';
import { explainOpenError } from './open-errors.ts';
import { startCheckpointer } from './checkpointer.ts';
import { createDbHealth } from './db-health.ts';
import { createHourRollups, type HourRollups } from './hour-rollups.ts';
import { createRollupReader } from './rollup-reads.ts';
import { createEventReads } from './event-reads.ts';
import { createSampleReads } from './sample-reads.ts';
import { createShadowReads } from './shadow-reads.ts';
import { createTelemetryPart } from './telemetry-part.ts';
import { createAlertStore } from './alert-store.ts';
import { createSilenceStore } from './silence-store.ts';
import { createNotificationStore } from './notification-store.ts';
import { createSessionStore } from './session-store.ts';
import { createSuspicionStore } from './suspicion-store.ts';
import { createTokenStore } from './token-store.ts';
import { createFleetStore } from './fleet-store.ts';
import { createDrillStore } from './drill-store.ts';
import { createMetricsReads } from './metrics-reads.ts';
import { createPruner } from './retention.ts';
import { asyncPart } from './sync-part.ts';
import { alwaysHeldLease } from '../parts/lease.ts';

/** Options of the SQLite engine. */
export interface SqliteStorageOptions {
  /** The database file, or `:memory:`. */
  path: string;
  /** A read-only connection (the read worker): no migrations, writes, checkpointer or fault watch. */
  readonly?: boolean;
  clock: ServerClock;
  retention: RetentionPolicy;
  /** `Retry-After` seconds while a storage fault lasts. */
  retryAfterS: number;
  /** Told once when a fault starts (with it) and once when it clears (null). */
  onFault?(fault: StorageFault | null, previous: StorageFault | null): void;
  /** Told where the open database was copied after its file was deleted or replaced (or why it could not be). */
  onRescue?(result: { target: string; error?: unknown }): void;
  /** Told when the background checkpoint fails (the writer then checkpoints itself). */
  onCheckpointError?(message: string): void;
}

/** What the SQLite engine keeps for tests and the CLI only; nothing in `server/` outside storage reaches it. */
export interface SqliteInternals {
  db: Db;
  hours: HourRollups;
}

const internals = new WeakMap<Storage, SqliteInternals>();

/** The connection and hourly planner behind a SQLite storage (tests and `breakerbox` CLI maintenance); throws for other engines. */
export function sqliteInternals(storage: Storage): SqliteInternals {
  const found = internals.get(storage);
  if (!found) throw new Error(`not a SQLite storage (engine: ${storage.engine})`);
  return found;
}

/**
 * Opens the embedded engine: one write connection (WAL, synchronous=FULL), migrations
 * applied and checked, every statement prepared once here, a worker thread that runs WAL
 * checkpoints, and the file watch behind `health`.
 */
export function createSqliteStorage(options: SqliteStorageOptions): Storage {
  const { path, clock } = options;
  const readonly = options.readonly ?? false;
  const db = openDatabase(path, { readonly });
  let report: MigrationReport | null = null;
  if (!readonly) {
    try {
      report = applyMigrations(db, undefined, clock.now());
    } catch (err) {
      db.close();
      throw explainOpenError(path, err);
    }
  }

  let rescuing: Promise<unknown> | null = null;
  const dbHealth = readonly
    ? null
    : createDbHealth(db, path, {
        retryAfterS: options.retryAfterS,
        onChange: (fault, previous) => {
          options.onFault?.(fault, previous);
          if (fault && (fault.kind === 'deleted' || fault.kind === 'replaced')) {
            // What the open connection still holds is copied beside the path, so a restart need not lose it.
            const target = `${path}.rescued-${fault.since}`;
            rescuing = db.backup(target).then(
              () => options.onRescue?.({ target }),
              (error) => options.onRescue?.({ target, error }),
            );
          }
        },
      });
  const checkpointer = readonly || path === ':memory:' ? null : startCheckpointer(db, path, { onError: options.onCheckpointError });

  const hours = createHourRollups(db, clock);
  // On a read-only connection every part is still there: its writes fail with SQLITE_READONLY.

  const storage: Storage = {
    engine: 'sqlite',
    migrations: report ?? { applied: [], alreadyApplied: 0 },
    telemetry: asyncPart(createTelemetryPart(db, { writable: !readonly })),
    rollups: {
      ...createRollupReader(db, hours),
      ...asyncPart<Pick<Storage['rollups'], 'buildHour'>>({ buildHour: (hour, now) => hours.build(hour, now) }),
      // Already async: it yields to the event loop between hours.
      warmHours: (spanMs, now) => hours.warm(spanMs, now),
    },
    events: asyncPart(createEventReads(db)),
    samples: asyncPart(createSampleReads(db)),
    shadow: asyncPart(createShadowReads(db)),
    alerts: asyncPart(createAlertStore(db)),
    silences: asyncPart(createSilenceStore(db)),
    notifications: asyncPart(createNotificationStore(db)),
    // Read-only too: the read worker's verdicts wait for asked probes as the main thread's do.
    suspicions: asyncPart(createSuspicionStore(db)),
    sessions: asyncPart(createSessionStore(db)),
    tokens: asyncPart(createTokenStore(db)),
    fleet: asyncPart(createFleetStore(db)),
    drills: asyncPart(createDrillStore(db)),
    metrics: asyncPart(createMetricsReads(db, path)),
    retention: createPruner(db, options.retention),
    lease: alwaysHeldLease(),
    health: {
      check: async (now) => dbHealth?.check(now) ?? null,
      admit: async (now) => dbHealth?.admit(now) ?? 0,
      writeFailed: async (err, now) => dbHealth?.writeFailed(err, now) ?? null,
      writeSucceeded: async () => dbHealth?.writeSucceeded(),
      async notReadyReason(now) {
        const fault = dbHealth?.check(now);
        if (fault) return fault.reason;
        if (readonly) return null;
        try {
          // Taking the write lock proves no other writer holds the file.
          db.exec('BEGIN IMMEDIATE');
          db.exec('ROLLBACK');
          return migrationsUpToDate(db) ? null : 'migrations are pending';
        } catch (err) {
          return `the database cannot take writes (${(err as { code?: string }).code ?? (err as Error).message})`;
        }
      },
    },
    async close() {
      await checkpointer?.stop();
      await rescuing;
      db.close();
    },
  };
  internals.set(storage, { db, hours });
  return storage;
}

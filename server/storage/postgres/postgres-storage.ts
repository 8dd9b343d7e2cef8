import type { ServerClock } from '../../clock.ts';
import type { Config } from '../../config/schema.ts';
import type { LeaderLease } from '../parts/lease.ts';
import type { StorageFault } from '../parts/health.ts';
import type { RetentionPolicy } from '../parts/retention.ts';
import type { Storage } from '../storage.ts';
import { createPostgresAlerts } from './alerts.ts';
import { createChangeLogReader } from './change-log.ts';
import { createPostgresEventReads } from './event-reads.ts';
import { createPostgresSampleReads } from './sample-reads.ts';
import { createPostgresShadowReads } from './shadow-reads.ts';
import { createPostgresHealth } from './health.ts';
import { createPostgresHourRollups } from './hour-rollups.ts';
import { createLeaderLease, type LeaderLeaseOptions } from './leader-lease.ts';
import { createPostgresMetricsReads } from './metrics-reads.ts';
import { applyPostgresMigrations } from './migrations.ts';
import { createPostgresNotifications } from './notifications.ts';
import { createPool, type PgPool } from './pool.ts';
import { createPostgresPruner } from './retention.ts';
import { createPostgresRollupReads } from './rollup-reads.ts';
import { createPostgresSessions } from './sessions.ts';
import { createPostgresSilences } from './silences.ts';
import { createPostgresSuspicions } from './suspicions.ts';
import { createPostgresTelemetry } from './telemetry.ts';
import { createPostgresTokens } from './tokens.ts';
import { createPostgresFleet } from './fleet.ts';
import { createPostgresDrills } from './drills.ts';
import { BreakerboxError } from '../../errors.ts';
import { redactDbUrl } from '../../config/storage-engine.ts';

/** The storage interface on PostgreSQL, with its pool (tests) and its leader lease. */
export type PostgresStorage = Storage & {
  readonly pool: PgPool;
  readonly lease: LeaderLease;
};

/** Options of `createPostgresStorage`. */
export interface PostgresStorageOptions {
  /** `postgres://user:password@host:port/database` (BREAKERBOX_DB). */
  url: string;
  clock: ServerClock;
  retryAfterS: number;
  retention: RetentionPolicy;
  /** Most pooled connections of this collector (default 10). */
  poolMax?: number;
  lease?: LeaderLeaseOptions;
  onFault?(fault: StorageFault | null, previous: StorageFault | null): void;
}

/** The engine's options from the configuration (`db` is the URL). */
export function postgresStorageOptions(config: Config, clock: ServerClock, retention: RetentionPolicy): PostgresStorageOptions {
  return {
    url: config.db,
    clock,
    retention,
    retryAfterS: config.storage.retry_after_s,
    poolMax: config.storage.pool_max,
    lease: { renewMs: config.storage.leader_renew_ms, holdMs: config.storage.leader_hold_ms },
  };
}

/**
 * Opens the PostgreSQL engine: a pool, migrations applied under their advisory lock (two
 * collectors starting together migrate once), every part over the pool, and the leader
 * lease on its own session (not started: the caller starts it when it runs leader work).
 */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const { clock } = options;
  const pool = createPool(options.url, { max: options.poolMax });
  let migrations;
  try {
    migrations = await applyPostgresMigrations(pool, undefined, clock.now());
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof BreakerboxError) throw err;
    // A refused connection, an unknown host, a wrong password: one sentence naming the database (password hidden).
    throw new BreakerboxError('BB_ERR_STORE_UNAVAILABLE', `cannot open the PostgreSQL database ${redactDbUrl(options.url)}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }
  const lease = createLeaderLease(options.url, clock, options.lease);
  const hours = createPostgresHourRollups(pool);
  return {
    engine: 'postgres',
    migrations,
    pool,
    lease,
    telemetry: createPostgresTelemetry(pool),
    rollups: {
      ...createPostgresRollupReads(pool, hours, () => clock.now()),
      buildHour: (hour, now) => hours.build(hour, now),
      warmHours: (spanMs, now) => hours.warm(spanMs, now),
    },
    events: createPostgresEventReads(pool),
    samples: createPostgresSampleReads(pool),
    shadow: createPostgresShadowReads(pool),
    alerts: createPostgresAlerts(pool),
    silences: createPostgresSilences(pool),
    notifications: createPostgresNotifications(pool),
    suspicions: createPostgresSuspicions(pool),
    tokens: createPostgresTokens(pool, { now: () => clock.now() }),
    sessions: createPostgresSessions(pool),
    fleet: createPostgresFleet(pool),
    drills: createPostgresDrills(pool),
    metrics: createPostgresMetricsReads(pool),
    retention: createPostgresPruner(pool, options.retention),
    changeLog: createChangeLogReader(pool),
    health: createPostgresHealth(pool, { retryAfterS: options.retryAfterS, onFault: options.onFault }),
    async close() {
      await lease.close();
      await pool.end();
    },
  };
}

import type { ServerClock } from '../../clock.ts';
import type { Config } from '../../config/schema.ts';
import type { LeaderLease } from '../parts/lease.ts';
import type { StorageFault } from '../parts/health.ts';
import type { Storage } from '../storage.ts';
import { createPostgresAlerts } from './alerts.ts';
import { createPostgresEventReads } from './event-reads.ts';
import { createPostgresHealth } from './health.ts';
import { createLeaderLease, type LeaderLeaseOptions } from './leader-lease.ts';
import { applyPostgresMigrations } from './migrations.ts';
import { createPool, type PgPool } from './pool.ts';
import { createPostgresNotifications } from './notifications.ts';
import { createPostgresSessions } from './sessions.ts';
import { createPostgresSilences } from './silences.ts';
import { createPostgresTelemetry } from './telemetry.ts';
import { createPostgresTokens } from './tokens.ts';

/** The parts of the storage interface the PostgreSQL engine implements so far, its pool and its leader lease. */
export type PostgresStorage = Pick<Storage, 'engine' | 'telemetry' | 'events' | 'alerts' | 'silences' | 'notifications' | 'tokens' | 'sessions' | 'health' | 'close'> & {
  readonly pool: PgPool;
  readonly lease: LeaderLease;
};

/** Options of `createPostgresStorage`. */
export interface PostgresStorageOptions {
  /** `postgres://user:password@host:port/database` (BREAKERBOX_DB). */
  url: string;
  clock: ServerClock;
  retryAfterS: number;
  /** Most pooled connections of this collector (default 10). */
  poolMax?: number;
  lease?: LeaderLeaseOptions;
  onFault?(fault: StorageFault | null, previous: StorageFault | null): void;
}

/** The engine's options from the configuration (`db` is the URL). */
export function postgresStorageOptions(config: Config, clock: ServerClock): PostgresStorageOptions {
  return {
    url: config.db,
    clock,
    retryAfterS: config.storage.retry_after_s,
    poolMax: config.storage.pool_max,
    lease: { renewMs: config.storage.leader_renew_ms, holdMs: config.storage.leader_hold_ms },
  };
}

/**
 * Opens the PostgreSQL engine: a pool, migrations applied under their advisory lock (two
 * collectors starting together migrate once), the parts over the pool, and the leader
 * lease on its own session (not started: the caller starts it when it runs leader work).
 */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const pool = createPool(options.url, { max: options.poolMax });
  try {
    await applyPostgresMigrations(pool, undefined, options.clock.now());
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const lease = createLeaderLease(options.url, options.clock, options.lease);
  return {
    engine: 'postgres',
    pool,
    lease,
    telemetry: createPostgresTelemetry(pool),
    events: createPostgresEventReads(pool),
    alerts: createPostgresAlerts(pool),
    silences: createPostgresSilences(pool),
    notifications: createPostgresNotifications(pool),
    tokens: createPostgresTokens(pool, { now: () => options.clock.now() }),
    sessions: createPostgresSessions(pool),
    health: createPostgresHealth(pool, { retryAfterS: options.retryAfterS, onFault: options.onFault }),
    async close() {
      await lease.close();
      await pool.end();
    },
  };
}

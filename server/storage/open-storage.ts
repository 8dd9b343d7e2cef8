import type { Config } from '../config/schema.ts';
import type { ServerClock } from '../clock.ts';
import type { Storage } from './storage.ts';
import type { RetentionPolicy } from './parts/retention.ts';
import type { StorageFault } from './parts/health.ts';
import { createSqliteStorage } from './sqlite/sqlite-storage.ts';

/** What the engines report while they run. */
export interface StorageEvents {
  onFault?(fault: StorageFault | null, previous: StorageFault | null): void;
  onRescue?(result: { target: string; error?: unknown }): void;
  onCheckpointError?(message: string): void;
}

/** Batch ids are remembered this long, whatever the raw retention. */
const BATCH_ID_HOURS = 48;
/** Silences are listed for a week after they end, then deleted. */
const SILENCE_DAYS = 7;

/** The retention policy of the configuration: one place, read by the one pruner. */
export function retentionPolicy(config: Config): RetentionPolicy {
  return {
    rawDays: config.retention.raw_days,
    rollupDays: config.retention.rollup_days,
    batchIdHours: BATCH_ID_HOURS,
    alertHistoryDays: config.alerts.history_days,
    silenceDays: SILENCE_DAYS,
  };
}

/**
 * Opens the storage `config.db` names: a SQLite file path (or `:memory:`) for the embedded
 * engine. Migrations are applied before it resolves.
 */
export async function openStorage(config: Config, clock: ServerClock, events: StorageEvents = {}): Promise<Storage> {
  return createSqliteStorage({
    path: config.db,
    clock,
    retention: retentionPolicy(config),
    retryAfterS: config.storage.retry_after_s,
    ...events,
  });
}

import type { FastifyInstance } from 'fastify';
import { sqliteInternals } from '../../server/storage/sqlite/sqlite-storage.ts';
import type { Db } from '../../server/storage/sqlite/database.ts';

/**
 * The SQLite connection behind an app's storage, for tests that check what was stored
 * row by row (the collector itself only ever goes through `app.storage`).
 */
export function sqlOf(app: FastifyInstance): Db {
  return sqliteInternals(app.storage).db;
}

/** The hourly planner of an app's SQLite storage: which segments of a span are read from hours. */
export function hourPlanOf(app: FastifyInstance) {
  return sqliteInternals(app.storage).hours;
}

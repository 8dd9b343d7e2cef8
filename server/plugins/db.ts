import fp from 'fastify-plugin';
import { openDatabase, type Db } from '../storage/database.ts';
import { applyMigrations, migrationsUpToDate } from '../storage/migrations.ts';
import { createTokenStore, type TokenStore } from '../storage/token-store.ts';
import { createTelemetryStore, type TelemetryStore } from '../storage/telemetry-store.ts';
import { createPruner } from '../storage/retention.ts';
import { startCheckpointer } from '../storage/checkpointer.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    tokens: TokenStore;
    telemetry: TelemetryStore;
    /** True when the database takes writes and every migration is applied. */
    isReady(): boolean;
  }
}

/**
 * Opens the SQLite file (the collector's one write connection), applies migrations,
 * decorates the stores, prunes expired data on a timer, and closes it all on shutdown.
 */
export const dbPlugin = fp(async (app) => {
  const { config } = app;
  const db = openDatabase(config.db);
  try {
    const report = applyMigrations(db, undefined, app.clock.now());
    if (report.applied.length) app.log.info({ applied: report.applied }, 'migrations applied');
  } catch (err) {
    db.close();
    throw err;
  }
  app.decorate('db', db);
  app.decorate('tokens', createTokenStore(db));
  app.decorate('telemetry', createTelemetryStore(db));
  app.decorate('isReady', () => {
    try {
      // Taking the write lock proves the file is writable right now.
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
      return migrationsUpToDate(db);
    } catch {
      return false;
    }
  });

  const pruner = createPruner(db, {
    rawDays: config.retention.raw_days,
    rollupDays: config.retention.rollup_days,
    batchIdHours: 48,
  });
  let pruning: Promise<unknown> | null = null;
  const prune = () => {
    if (pruning) return;
    pruning = pruner
      .prune(app.clock.now())
      .then(({ deleted }) => {
        const total = Object.values(deleted).reduce((a, b) => a + b, 0);
        if (total > 0) app.log.info({ deleted }, 'expired telemetry pruned');
      })
      .catch((err) => app.log.error({ err }, 'pruning failed'))
      .finally(() => {
        pruning = null;
      });
  };
  const timer = setInterval(prune, config.retention.prune_interval_s * 1000);
  timer.unref();
  app.addHook('onReady', async () => prune());

  const checkpointer = config.db === ':memory:' ? null : startCheckpointer(db, config.db, {
    onError: (message) => app.log.warn({ message }, 'background checkpoint failed; the writer checkpoints instead'),
  });

  app.addHook('onClose', async () => {
    clearInterval(timer);
    await pruning;
    await checkpointer?.stop();
    db.close();
  });
});

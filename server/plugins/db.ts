import fp from 'fastify-plugin';
import { openDatabase, type Db } from '../storage/database.ts';
import { applyMigrations, migrationsUpToDate } from '../storage/migrations.ts';
import { createTokenStore, type TokenStore } from '../storage/token-store.ts';
import { createTelemetryStore, type TelemetryStore } from '../storage/telemetry-store.ts';
import { createPruner } from '../storage/retention.ts';
import { startCheckpointer } from '../storage/checkpointer.ts';
import { createDbHealth, type DbFault, type DbHealth } from '../storage/db-health.ts';
import { explainOpenError } from '../storage/open-errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    tokens: TokenStore;
    telemetry: TelemetryStore;
    /** Storage fault watch: ingest asks it before and after each write. */
    dbHealth: DbHealth;
    /** Null when the database takes writes and every migration is applied, else why not. */
    notReadyReason(): string | null;
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
    throw explainOpenError(config.db, err);
  }
  app.decorate('db', db);
  app.decorate('tokens', createTokenStore(db));
  app.decorate('telemetry', createTelemetryStore(db));
  const health = createDbHealth(db, config.db, {
    retryAfterS: config.storage.retry_after_s,
    onChange: (fault, previous) => {
      if (fault) {
        app.log.error({ fault: fault.kind }, `storage fault: ${fault.reason}; ingest answers 503 with Retry-After until it clears`);
        if (fault.kind === 'deleted' || fault.kind === 'replaced') rescue(fault);
      } else app.log.warn({ cleared: previous?.kind }, 'storage fault cleared: the database takes writes again');
    },
  });
  // What the open connection still holds is copied beside the path, so a restart need not lose it.
  let rescuing: Promise<unknown> | null = null;
  const rescue = (fault: DbFault) => {
    const target = `${config.db}.rescued-${fault.since}`;
    rescuing = db.backup(target).then(
      () => app.log.error({ rescued: target }, `everything stored so far was copied to ${target}: stop the collector, move that file to ${config.db}, and start it again`),
      (err) => app.log.error({ err }, `could not copy the open database to ${target}`),
    );
  };
  app.decorate('dbHealth', health);
  app.decorate('notReadyReason', () => {
    const fault = health.check(Date.now());
    if (fault) return fault.reason;
    try {
      // Taking the write lock proves no other writer holds the file.
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
      return migrationsUpToDate(db) ? null : 'migrations are pending';
    } catch (err) {
      return `the database cannot take writes (${(err as { code?: string }).code ?? (err as Error).message})`;
    }
  });
  const watch = setInterval(() => health.check(Date.now()), config.storage.check_interval_ms);
  watch.unref();

  const pruner = createPruner(db, {
    rawDays: config.retention.raw_days,
    rollupDays: config.retention.rollup_days,
    batchIdHours: 48,
  });
  let pruning: Promise<unknown> | null = null;
  const prune = () => {
    if (pruning) return;
    pruning = app.collectorMetrics
      .timeJob('retention', pruner.prune(app.clock.now()))
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
    clearInterval(watch);
    await pruning;
    await checkpointer?.stop();
    await rescuing;
    db.close();
  });
});

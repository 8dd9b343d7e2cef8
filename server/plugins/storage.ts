import fp from 'fastify-plugin';
import type { Storage } from '../storage/storage.ts';
import { openStorage } from '../storage/open-storage.ts';
import { watchChanges, type ChangeFeed } from '../storage/change-feed.ts';
import { leaderJob } from './leader-job.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Everything stored, behind one interface (docs/architecture.md, "Storage"). */
    storage: Storage;
    /** This process's storage writes, for the incremental verdict analysis. */
    storageChanges: ChangeFeed;
  }
}

const DAY = 86_400_000;
/** How far back the background job keeps hourly aggregates built: a 7 d window plus its 24 h baseline. */
const WARM_SPAN_MS = 8 * DAY;
const WARM_INTERVAL_MS = 60_000;

/**
 * Opens the storage (migrations applied), decorates it, and runs its background jobs in
 * one place: the fault watch, the one pruner every `retention.prune_interval_s`, and the
 * hourly aggregation every minute, so requests never write. Closes it all on shutdown.
 */
export const storagePlugin = fp(
  async (app) => {
    const { config } = app;
    const opened = await openStorage(config, app.clock, {
      onFault(fault, previous) {
        if (fault) app.log.error({ fault: fault.kind }, `storage fault: ${fault.reason}; ingest answers 503 with Retry-After until it clears`);
        else app.log.warn({ cleared: previous?.kind }, 'storage fault cleared: the database takes writes again');
      },
      onRescue({ target, error }) {
        if (error) app.log.error({ err: error }, `could not copy the open database to ${target}`);
        else app.log.error({ rescued: target }, `everything stored so far was copied to ${target}: stop the collector, move that file to ${config.db}, and start it again`);
      },
      onCheckpointError: (message) => app.log.warn({ message }, 'background checkpoint failed; the writer checkpoints instead'),
    });
    // Every write goes through the wrapped storage, so the feed sees them all (this process's).
    const { storage, feed } = watchChanges(opened);
    app.decorate('storageChanges', feed);
    if (storage.migrations.applied.length) app.log.info({ applied: storage.migrations.applied }, 'migrations applied');
    app.decorate('storage', storage);

    const watch = setInterval(() => void storage.health.check(Date.now()), config.storage.check_interval_ms);
    watch.unref();

    // Pruning and hourly aggregation run on the lease holder only: once per fleet, not once per collector.
    storage.lease.start();
    storage.lease.onChange((held) => app.log.info({ leader: held }, held ? 'this collector holds the leader lease' : 'this collector no longer holds the leader lease'));
    const isLeader = () => storage.lease.isHeld();
    const pruneOnce = async () => {
      const { deleted } = await storage.retention.prune(app.clock.now());
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0) app.log.info({ deleted }, 'expired data pruned');
    };
    const prune = leaderJob({
      intervalMs: config.retention.prune_interval_s * 1000,
      isLeader,
      run: () => app.collectorMetrics.timeJob('retention', pruneOnce()),
      onError: (err) => app.log.error({ err }, 'pruning failed'),
    });
    const maxSpanMs = config.retention.rollup_days * DAY;
    const warm = leaderJob({
      intervalMs: WARM_INTERVAL_MS,
      isLeader,
      run: () => app.collectorMetrics.timeJob('rollup', storage.rollups.warmHours(Math.min(WARM_SPAN_MS, maxSpanMs), app.clock.now())),
      onError: (err) => app.log.error({ err }, 'building hourly aggregates failed'),
    });
    prune.start();
    warm.start();
    app.addHook('onReady', async () => {
      prune.tick();
      warm.tick();
    });

    app.addHook('onClose', async () => {
      clearInterval(watch);
      await prune.close();
      await warm.close();
      await storage.close();
    });
  },
  { name: 'breakerbox-storage', dependencies: ['breakerbox-collector-metrics'] },
);

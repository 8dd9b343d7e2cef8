import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { createVerdictEngine, type VerdictEngine } from '../verdicts/verdict-engine.ts';
import { pendingProbesSource } from '../verdicts/pending-probes.ts';
import { parseStep, parseWindow, type TimeRange, type WindowQuery } from '../verdicts/window.ts';
import { pageOf, pageRequest } from '../query/pagination.ts';
import { probesPage } from '../query/probe-pages.ts';
import { inThreadReads, startReadWorker, type FleetReads } from '../query/read-worker.ts';
import { IncidentsRoute, VerdictsRoute } from '../schemas/verdicts.ts';
import { KeyRoute } from '../schemas/keys.ts';
import { CostRoute } from '../schemas/cost.ts';
import { ProbesRoute } from '../schemas/probes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Derived numbers, verdicts, key detail, cost and probe views. */
    verdicts: VerdictEngine;
    /** `/api/verdicts` and `/api/keys` over the whole fleet, off the event loop when configured. */
    fleetReads: FleetReads;
    /** Resolves a request's window parameters (window, or from/to) against the retention. */
    resolveWindow(query: WindowQuery, defaultWindow: string): TimeRange;
  }
}

const DAY = 86_400_000;

/**
 * Verdicts and the views built on them: `GET /api/verdicts`, `/api/incidents`, `/api/key`, `/api/cost`,
 * `/api/probes` (docs/api.md). The hourly aggregates long windows read are built by the
 * storage plugin's background job, so requests never write.
 */
export const verdictsPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const s = app.config.suspicion;
    // Probe on suspicion: verdicts wait for the probes asked for (docs/alerts.md).
    const pendingMaxMs = s.enabled ? s.pending_max_s * 1000 : null;
    const pending = pendingMaxMs === null ? undefined : pendingProbesSource(app.storage.suspicions, pendingMaxMs);
    // Incremental where the change feed sees every collector's writes: SQLite's one writer, PostgreSQL's shared change log.
    const incremental = app.config.verdicts.incremental && (app.storage.engine === 'sqlite' || app.storageChanges.sync !== undefined);
    const engine = createVerdictEngine(app.storage, app.config.verdicts, pending, app.retirements, incremental ? app.storageChanges : undefined);
    const maxSpanMs = app.config.retention.rollup_days * DAY;
    app.decorate('verdicts', engine);
    const here = inThreadReads(engine);
    // On PostgreSQL the heavy reads run on the database server; the worker's read-only connection is SQLite's.
    const fleetReads = app.config.api.read_worker && app.storage.engine === 'sqlite' && app.config.db !== ':memory:'
      ? startReadWorker({
          path: app.config.db,
          thresholds: app.config.verdicts,
          pendingMaxMs,
          lifecycle: app.config.lifecycle,
          // The worker keeps its own analyses, told of this thread's writes with each question.
          ...(incremental ? { feed: app.storageChanges } : {}),
          fallback: here,
          onError: (err) => app.log.warn({ err }, 'the read worker failed; /api/verdicts and /api/keys are computed on the main thread'),
        })
      : here;
    app.decorate('fleetReads', fleetReads);
    app.decorate('resolveWindow', (query: WindowQuery, defaultWindow: string) => parseWindow(query, app.clock.now(), { defaultWindow, maxSpanMs }));

    app.addHook('onClose', async () => {
      await fleetReads.close();
    });

    const read = app.requireRight('read');
    const paging = { defaultLimit: app.config.api.default_limit, maxLimit: app.config.api.max_limit };
    app.get('/api/verdicts', { onRequest: read, schema: VerdictsRoute }, async (request) => {
      const q = request.query;
      const at = pageRequest(q, paging);
      const range = at.range ?? app.resolveWindow(q, '15m');
      const { items, total } = await fleetReads.verdictsPage(range, { offset: at.offset, limit: at.limit });
      const { next_cursor } = pageOf(items, total, at, range);
      return { window: range, verdicts: items, next_cursor, total };
    });

    app.get('/api/key', { onRequest: read, schema: KeyRoute }, async (request) => {
      const q = request.query;
      const range = app.resolveWindow(q, '1h');
      const key = { provider: q.provider, endpoint: q.endpoint, model: q.model, ...(q.region ? { region: q.region } : {}) };
      const detail = await engine.keyDetail(key, range, parseStep(q.step, range));
      if (!detail) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no such key has reported');
      return detail;
    });

    app.get('/api/cost', { onRequest: read, schema: CostRoute }, async (request) => {
      const q = request.query;
      const range = app.resolveWindow(q, '24h');
      return engine.cost(range, parseStep(q.step, range), q.operation);
    });

    app.get('/api/incidents', { onRequest: read, schema: IncidentsRoute }, async (request) => {
      const range = app.resolveWindow(request.query, '15m');
      return { window: range, incidents: await engine.incidents(range) };
    });

    app.get('/api/probes', { onRequest: read, schema: ProbesRoute }, async (request) => {
      const q = request.query;
      const at = pageRequest(q, paging);
      return probesPage(await engine.probes(at.range ?? app.resolveWindow(q, '1h')), at);
    });

  },
  { name: 'breakerbox-verdicts', dependencies: ['breakerbox-suspicion'] },
);

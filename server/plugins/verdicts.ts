import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import { BreakerboxError } from '../errors.ts';
import { createVerdictEngine, type VerdictEngine } from '../verdicts/verdict-engine.ts';
import { pendingProbesSource } from '../verdicts/pending-probes.ts';
import { parseStep, parseWindow, type TimeRange, type WindowQuery } from '../verdicts/window.ts';
import { PageParams, page, pageRequest } from '../query/pagination.ts';
import { probesPage } from '../query/probe-pages.ts';
import { inThreadReads, startReadWorker, type FleetReads } from '../query/read-worker.ts';

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
const Millis = Type.String({ pattern: '^[0-9]{1,16}$' });
const WindowParams = {
  window: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Millis),
  to: Type.Optional(Millis),
};
const Windowed = Type.Object(WindowParams);
const PagedWindow = Type.Object({ ...WindowParams, ...PageParams });
const KeyQuery = Type.Object({
  ...WindowParams,
  step: Type.Optional(Millis),
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  model: Type.String({ minLength: 1, maxLength: 300 }),
  region: Type.Optional(Type.String({ maxLength: 100 })),
});
const CostQuery = Type.Object({ ...WindowParams, step: Type.Optional(Millis), operation: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });

/** How far back the background job keeps hourly aggregates built: a 7 d window plus its 24 h baseline. */
const WARM_SPAN_MS = 8 * DAY;
const WARM_INTERVAL_MS = 60_000;

/**
 * Verdicts and the views built on them: `GET /api/verdicts`, `/api/incidents`, `/api/key`, `/api/cost`,
 * `/api/probes` (docs/api.md). A background job builds the hourly aggregates that long
 * windows read, so requests never write.
 */
export const verdictsPlugin = fp(
  async (app) => {
    const s = app.config.suspicion;
    // Probe on suspicion: verdicts wait for the probes asked for (docs/alerts.md).
    const pendingMaxMs = s.enabled ? s.pending_max_s * 1000 : null;
    const pending = pendingMaxMs === null ? undefined : pendingProbesSource(app.suspicion.store, pendingMaxMs);
    const engine = createVerdictEngine(app.db, app.config.verdicts, app.clock, pending);
    const maxSpanMs = app.config.retention.rollup_days * DAY;
    app.decorate('verdicts', engine);
    const here = inThreadReads(engine);
    const fleetReads = app.config.api.read_worker && app.config.db !== ':memory:'
      ? startReadWorker({
          path: app.config.db,
          thresholds: app.config.verdicts,
          pendingMaxMs,
          fallback: here,
          onError: (err) => app.log.warn({ err }, 'the read worker failed; /api/verdicts and /api/keys are computed on the main thread'),
        })
      : here;
    app.decorate('fleetReads', fleetReads);
    app.decorate('resolveWindow', (query: WindowQuery, defaultWindow: string) => parseWindow(query, app.clock.now(), { defaultWindow, maxSpanMs }));

    let warming: Promise<unknown> | null = null;
    let closed = false;
    const warm = () => {
      if (warming || closed) return;
      warming = app.collectorMetrics
        .timeJob('rollup', engine.hours.warm(Math.min(WARM_SPAN_MS, maxSpanMs)))
        .then(() => engine.hours.prune(app.clock.now() - maxSpanMs))
        .catch((err) => app.log.error({ err }, 'building hourly aggregates failed'))
        .finally(() => {
          warming = null;
        });
    };
    const timer = setInterval(warm, WARM_INTERVAL_MS);
    timer.unref();
    app.addHook('onReady', async () => warm());
    app.addHook('onClose', async () => {
      closed = true;
      clearInterval(timer);
      await warming;
      await fleetReads.close();
    });

    const read = app.requireRight('read');
    const paging = { defaultLimit: app.config.api.default_limit, maxLimit: app.config.api.max_limit };
    app.get('/api/verdicts', { onRequest: read, schema: { querystring: PagedWindow } }, async (request) => {
      const q = request.query as WindowQuery & { limit?: string; cursor?: string };
      const at = pageRequest(q, paging);
      const range = at.range ?? app.resolveWindow(q, '15m');
      const { items, next_cursor, total } = page(await fleetReads.verdicts(range), at, range);
      return { window: range, verdicts: items, next_cursor, total };
    });

    app.get('/api/key', { onRequest: read, schema: { querystring: KeyQuery } }, async (request) => {
      const q = request.query as WindowQuery & { provider: string; endpoint: string; model: string; region?: string };
      const range = app.resolveWindow(q, '1h');
      const key = { provider: q.provider, endpoint: q.endpoint, model: q.model, ...(q.region ? { region: q.region } : {}) };
      const detail = engine.keyDetail(key, range, parseStep(q.step, range));
      if (!detail) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no such key has reported');
      return detail;
    });

    app.get('/api/cost', { onRequest: read, schema: { querystring: CostQuery } }, async (request) => {
      const q = request.query as WindowQuery & { operation?: string };
      const range = app.resolveWindow(q, '24h');
      return engine.cost(range, parseStep(q.step, range), q.operation);
    });

    app.get('/api/incidents', { onRequest: read, schema: { querystring: Windowed } }, async (request) => {
      const range = app.resolveWindow(request.query as WindowQuery, '15m');
      return { window: range, incidents: engine.incidents(range) };
    });

    app.get('/api/probes', { onRequest: read, schema: { querystring: PagedWindow } }, async (request) => {
      const q = request.query as WindowQuery & { limit?: string; cursor?: string };
      const at = pageRequest(q, paging);
      return probesPage(engine.probes(at.range ?? app.resolveWindow(q, '1h')), at);
    });

  },
  { name: 'breakerbox-verdicts', dependencies: ['breakerbox-suspicion'] },
);

import fp from 'fastify-plugin';
import { statesOf } from '../metrics/latest-states.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { createAlertEngine, type AlertEngine, type EvaluationResult } from '../alerts/engine.ts';
import { createSilenceStore, type SilenceStore } from '../alerts/silences.ts';
import { createDispatcher, type Dispatcher } from '../notifiers/dispatcher.ts';
import { leaderJob } from './leader-job.ts';
import { createProbesLanded } from '../suspicion/probes-landed.ts';
import { createProbeMinuteLog, withProbeMinuteLog } from '../verdicts/probe-minute-log.ts';
import { AlertsRoute, CreateSilenceRoute, ExpireSilenceRoute, NotificationsRoute, SilencesRoute } from '../schemas/alerts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alert engine: `evaluate(now)` runs one pass (tests call it directly), `idle()` awaits deliveries. */
    alerts: {
      evaluate(now?: number): Promise<EvaluationResult>;
      idle(): Promise<void>;
      engine: AlertEngine;
      silences: SilenceStore;
      dispatcher: Dispatcher;
    };
  }
}

/** How often the leader looks for requested probes that answered, ms. */
const LANDED_CHECK_MS = 250;

/**
 * Alerts: the engine evaluated every `alerts.interval_s` (BREAKERBOX_ALERT_INTERVAL_S; 0 =
 * only on demand), notifiers, and `GET /api/alerts`, silences and `GET /api/notifications`.
 * Needs the verdicts plugin registered before it.
 */
export const alertsPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const cfg = app.config.alerts;
    const { storage } = app;
    const silences = createSilenceStore(storage.silences);
    const externalUrl = cfg.external_url ?? `http://${app.config.host}:${app.config.port}`;
    const dispatcher = createDispatcher({
      notifiers: app.config.notifiers,
      deliveries: storage.notifications,
      externalUrl,
      defaultRepeatMs: cfg.repeat_interval_s * 1000,
      log: app.log,
      clock: app.clock,
      mayDeliver: () => storage.lease.isHeld(),
    });
    // The probe minutes probe_failing and prober_silent read, kept in memory where the change feed sees every write (incremental; SQLite, or PostgreSQL's change log).
    const keepProbes = app.config.verdicts.incremental && (storage.engine === 'sqlite' || app.storageChanges.sync !== undefined);
    const probeLog = keepProbes
      ? createProbeMinuteLog(storage.rollups, app.storageChanges, Math.max(cfg.rules.prober_silent.lookback_s, cfg.rules.probe_failing.lookback_s) * 1000 + 2 * 60_000, cfg.rules.probe_failing.lookback_s * 1000 + 2 * 60_000)
      : undefined;
    const ruleStorage = probeLog
      ? { alerts: storage.alerts, notifications: storage.notifications, rollups: withProbeMinuteLog(storage.rollups, probeLog), events: storage.events, lease: storage.lease, samples: storage.samples, telemetry: storage.telemetry }
      : storage;
    const engine = createAlertEngine({
      storage: ruleStorage, calendar: app.retirements, verdicts: app.verdicts, config: cfg, silences, dispatcher, log: app.log, clock: app.clock, verdictThresholds: app.config.verdicts,
      onVerdicts: async (now, analyses) => {
        // The /metrics state gauges show this pass's states while they are fresh (docs/metrics.md).
        app.metricsStates.record(now, cfg.verdict_window_s * 1000, () => statesOf(analyses));
        if (app.hasDecorator('fleet')) await app.fleet.fromVerdicts(now, analyses);
      },
    });
    // Deliveries left pending are failed by the collector that leads, when it starts leading:
    // another collector's may be in flight until then.
    if (storage.lease.isHeld()) await storage.notifications.failAbandoned(app.clock.now());
    storage.lease.onChange((held) => {
      if (held) storage.notifications.failAbandoned(app.clock.now()).catch((err) => app.log.error({ err }, 'marking abandoned deliveries failed'));
    });

    const evaluate = async (now = app.clock.now()) => {
      const result = await engine.evaluate(now);
      app.collectorMetrics.alertEvaluation(result.took_ms);
      return result;
    };
    app.decorate('alerts', { evaluate, idle: () => dispatcher.idle(), engine, silences, dispatcher });

    // Only the leader lease's holder evaluates and pages; the others take over when it dies.
    const job = leaderJob({
      intervalMs: cfg.interval_s * 1000,
      isLeader: () => storage.lease.isHeld(),
      run: async () => {
        const r = await evaluate();
        if (r.took_ms > 1000) app.log.warn({ took_ms: r.took_ms }, 'slow alert evaluation');
      },
      onError: (err) => app.log.error({ err }, 'alert evaluation failed'),
    });
    if (cfg.interval_s > 0) app.addHook('onReady', async () => job.start());
    // Requested probes that answered complete a verdict (and may confirm a fleet outage): evaluate
    // then, not up to an interval later. Costs four indexed reads a second while no suspicion is open.
    const landed = createProbesLanded(storage.suspicions, app.config.verdicts.min_probes, app.config.suspicion.pending_max_s * 1000);
    const landedJob = leaderJob({
      intervalMs: LANDED_CHECK_MS,
      isLeader: () => storage.lease.isHeld(),
      run: async () => {
        // A running evaluation is left to finish; the next check sees the probes still unevaluated.
        if (job.busy) return;
        if (await landed.check(app.clock.now())) job.tick();
      },
      onError: (err) => app.log.warn({ err }, 'checking requested probes failed'),
    });
    if (cfg.interval_s > 0 && app.config.suspicion.enabled) app.addHook('onReady', async () => landedJob.start());
    app.addHook('onClose', async () => {
      await landedJob.close();
      await job.close();
      await dispatcher.close();
    });

    const read = app.requireRight('read');
    const admin = app.requireRight('admin');

    app.get('/api/alerts', { onRequest: read, schema: AlertsRoute }, async (request) => {
      const q = request.query;
      return { alerts: await engine.list({ state: q.state, limit: q.limit ?? 500, fingerprint: q.fingerprint }) };
    });

    app.post('/api/silences', { onRequest: admin, schema: CreateSilenceRoute }, async (request, reply) => {
      const silence = await silences.create(request.body, request.principal?.name ?? 'unknown', app.clock.now());
      return reply.code(201).send({ silence });
    });
    app.get('/api/silences', { onRequest: read, schema: SilencesRoute }, async () => ({ silences: await silences.list(app.clock.now()) }));
    app.delete('/api/silences/:id', { onRequest: admin, schema: ExpireSilenceRoute }, async (request) => {
      const silence = await silences.expire(request.params.id, app.clock.now());
      if (!silence) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no such silence');
      return { silence };
    });

    app.get('/api/notifications', { onRequest: read, schema: NotificationsRoute }, async (request) => {
      const q = request.query;
      return { notifiers: dispatcher.status(), deliveries: await storage.notifications.deliveries({ ...q, limit: q.limit ?? 100 }) };
    });
  },
  { name: 'breakerbox-alerts' },
);

import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_FLEET_FEED_KEYS, type DrillCommand } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import { createFeedHub } from '../fleet/feed-hub.ts';
import { createFeedSource } from '../fleet/feed-source.ts';
import { createFleetService, type FleetService } from '../fleet/fleet-service.ts';
import { createRecoveryProbes } from '../fleet/recovery-probes.ts';
import type { FleetAnalysis } from '../fleet/derive.ts';
import { DrainRoute, FleetFeedRoute, FleetListRoute, ReleaseRoute } from '../schemas/fleet.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The fleet feed (docs/fleet.md). */
    fleet: {
      service: FleetService;
      /** Feeds this collector holds open. */
      subscribers(): number;
      /** Reads the decisions in force now and pushes new and changed ones (the timer calls it; tests call it directly). */
      poll(now?: number): Promise<void>;
      /** Writes a drill command to this collector's feeds of its service (the drills plugin calls it); returns how many. */
      sendDrill(command: DrillCommand): number;
      /** This collector's open feeds by the service they named (drill commands reach only those). */
      feedServices(): Map<string, number>;
      /** The leader's pass over one alert evaluation's analyses (the alerts plugin calls it). */
      fromVerdicts(now: number, analyses: readonly FleetAnalysis[]): Promise<void>;
    };
  }
}

const WEEK_MS = 7 * 86_400_000;

/**
 * The fleet feed: `GET /v1/fleet` (Server-Sent Events, ingest token) pushes the decisions in
 * force to subscribed SDK instances; `GET /api/fleet` lists a key's decisions (read),
 * `POST /api/fleet/drain` and `/release` are on-call's lever (admin). Registered before the
 * alerts plugin, whose leader pass derives the verdict decisions.
 */
export const fleetPlugin = fp(
  async (app) => {
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    const cfg = app.config.fleet;
    const ttlMs = cfg.ttl_s * 1000;
    const service = createFleetService(app.storage, { ttlMs, maxProbeAgeMs: cfg.max_probe_age_s * 1000 });
    const hub = createFeedHub(cfg.max_buffered_bytes, { sent: (kind, n) => app.collectorMetrics.fleetSent(kind, n) });
    // Renewals every third of the TTL: two may be lost before an instance's TTL lapses.
    const source = createFeedSource(app.storage.fleet, hub, { ttlMs, renewMs: Math.floor(ttlMs / 3) });
    const recoveryProbes = createRecoveryProbes(app.storage, {
      baseMs: cfg.recovery_probe_s * 1000,
      perLocationPerHour: app.config.suspicion.max_per_location_per_hour,
      requestTtlMs: app.config.suspicion.request_ttl_s * 1000,
    });
    let polling: Promise<void> | null = null;
    const poll = (now = app.clock.now()) => {
      // A poll still running is not overlapped: the next tick waits for it.
      polling ??= source.poll(now).finally(() => {
        polling = null;
      });
      return polling;
    };
    /**
     * The timer's tick: on the leader, recoveries first (so they go out in this same poll) and
     * the recovery probes of the outages still running, then the push. The running outages
     * are read once and serve both.
     */
    const tick = async () => {
      const now = app.clock.now();
      if (app.storage.lease.isHeld()) {
        const { recovered, stillRunning } = await service.checkRecoveries(now, await app.storage.fleet.running(now, ['outage']));
        if (recovered) app.log.info({ recovered }, 'fleet outages recovered: their probes are ok again');
        const queued = await recoveryProbes.queue(now, stillRunning);
        if (queued) app.log.debug({ queued }, 'fleet outages: recovery probes requested');
      }
      await poll(now);
    };
    app.decorate('fleet', {
      service,
      subscribers: () => hub.size,
      poll,
      sendDrill: (command) => hub.drill(command),
      feedServices: () => hub.services(),
      async fromVerdicts(now, analyses) {
        if (!cfg.enabled || !app.storage.lease.isHeld()) return;
        const r = await service.fromVerdicts(now, analyses);
        if (r.opened || r.recovered) app.log.info(r, 'fleet decisions from the verdicts');
        // The leader pushes its own decisions at once instead of at its next poll.
        if (r.opened || r.recovered || r.renewed) await poll(now);
      },
    });

    const timers: NodeJS.Timeout[] = [];
    if (cfg.enabled) {
      app.addHook('onReady', async () => {
        const ticker = setInterval(() => void tick().catch((err) => app.log.warn({ err }, 'reading fleet decisions failed')), cfg.poll_interval_ms);
        const beat = setInterval(() => hub.heartbeat(), cfg.heartbeat_s * 1000);
        ticker.unref();
        beat.unref();
        timers.push(ticker, beat);
      });
    }
    // Before the server waits for connections to end: feeds never end by themselves.
    app.addHook('preClose', async () => {
      for (const t of timers) clearInterval(t);
      hub.closeAll();
    });
    app.addHook('onClose', async () => {
      await polling?.catch(() => undefined);
    });

    typed.get('/v1/fleet', { onRequest: app.requireRight('ingest'), schema: FleetFeedRoute }, async (request, reply) => {
      if (!cfg.enabled) throw new BreakerboxError('BB_ERR_FLEET_DISABLED');
      if (hub.size >= cfg.max_subscribers) throw new BreakerboxError('BB_ERR_FLEET_BUSY', undefined, { headers: { 'retry-after': '30' } });
      const { keys, service: named } = request.query;
      const tags = keys ? new Set(keys.split(',')) : null;
      if (tags && tags.size > MAX_FLEET_FEED_KEYS) throw new BreakerboxError('BB_ERR_QUERY_INVALID', `at most ${MAX_FLEET_FEED_KEYS} keys per feed; name none to get every key`, { path: '/keys' });
      reply.hijack();
      const raw = reply.raw;
      // A feed is idle between decisions by design: the heartbeat, not the socket timeout, keeps it honest.
      request.raw.socket.setTimeout(0);
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      const sub = { out: raw, tags, service: named ?? null };
      const remove = hub.add(sub);
      raw.on('close', remove);
      if (hub.send(sub, source.snapshot(app.clock.now()))) raw.write('event: ready\ndata: {}\n\n');
    });

    typed.get('/api/fleet', { onRequest: app.requireRight('read'), schema: FleetListRoute }, async (request) => {
      const q = request.query;
      const now = app.clock.now();
      const key = { provider: q.provider, endpoint: q.endpoint, model: q.model, ...(q.region ? { region: q.region } : {}) };
      const since = q.since === undefined ? now - WEEK_MS : Number(q.since);
      return { decisions: await service.forKey(key, since, now, 200), subscribers: hub.size };
    });

    const admin = app.requireRight('admin');
    typed.post('/api/fleet/drain', { onRequest: admin, schema: DrainRoute }, async (request, reply) => {
      const body = request.body;
      const now = app.clock.now();
      if ((body.expires_at === undefined) === (body.expires_in_s === undefined)) {
        throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'give exactly one of expires_at and expires_in_s', { path: '/expires_at' });
      }
      const expiresAt = body.expires_at ?? now + body.expires_in_s! * 1000;
      if (expiresAt <= now) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'the expiry is in the past', { path: '/expires_at' });
      if (expiresAt - now > cfg.max_drain_s * 1000) throw new BreakerboxError('BB_ERR_QUERY_INVALID', `a drain lasts at most fleet.max_drain_s (${cfg.max_drain_s} s)`, { path: '/expires_at' });
      const by = request.principal?.name ?? 'unknown';
      const decision = await service.drain(body.key, body.reason, expiresAt, by, now);
      request.log.info({ audit: 'fleet_drain', key: decision.key, by, reason: body.reason, expires_at: expiresAt }, 'fleet drain');
      await poll();
      return reply.code(201).send({ decision });
    });

    typed.post('/api/fleet/release', { onRequest: admin, schema: ReleaseRoute }, async (request, reply) => {
      const body = request.body;
      const by = request.principal?.name ?? 'unknown';
      const decision = await service.release(body.key, body.reason, by, app.clock.now());
      if (!decision) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no drain of this key is running');
      request.log.info({ audit: 'fleet_release', key: decision.key, by, reason: body.reason }, 'fleet release');
      await poll();
      return reply.code(201).send({ decision });
    });
  },
  { name: 'breakerbox-fleet', dependencies: ['breakerbox-collector-metrics'] },
);

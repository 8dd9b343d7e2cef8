import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { randomUUID } from 'node:crypto';
import { createDrillService, runView, type DrillService } from '../drills/drill-service.ts';
import { createDrillFeed } from '../drills/drill-feed.ts';
import type { DrillReport } from '../schemas/drills.ts';
import { DrillListRoute, DrillRunRoute, StartDrillRoute, StopDrillRoute } from '../schemas/drills.ts';
import { leaderJob } from './leader-job.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Failure drills (docs/drills.md). */
    drills: {
      service: DrillService;
      /** Sends the runs started or stopped since the last poll to this collector's feeds (the timer calls it; tests call it directly). */
      poll(now?: number): Promise<number>;
      /** The leader's pass: judges the runs that ended `drills.grace_s` ago (the timer calls it; tests call it directly). */
      judgeDue(now?: number): Promise<{ id: string; report: DrillReport }[]>;
    };
  }
}

const DEFAULT_STEP_S = 600;
/** How often a collector writes its feed counts by service to the database (at once when they change). */
const FEEDS_REPORT_MS = 10_000;
/** Feed counts older than this are a collector that stopped: ignored. */
const FEEDS_STALE_MS = 3 * FEEDS_REPORT_MS + 5_000;

/**
 * Failure drills: `POST /api/drills` stores a run and every collector's feed sends its command
 * to the feeds of its service (`GET /v1/fleet?service=`); drill batches are kept apart at
 * ingest (server/drills/drill-ingest.ts); the leader judges each run once it has ended and
 * its telemetry has had `drills.grace_s` to arrive, and stores the report. Every route needs
 * the admin right: a drill makes a service's calls fail on purpose.
 */
export const drillsPlugin = fp(
  async (app) => {
    const typed = app.withTypeProvider<TypeBoxTypeProvider>();
    const cfg = app.config.drills;
    const service = createDrillService(app.storage.drills, app.config);
    // A change is sent while fresh: a few polls' worth, so a follower that polls late still sends it once.
    const freshMs = Math.max(10_000, 5 * app.config.fleet.poll_interval_ms);
    // This process among the collectors of one database: its feed counts and deliveries are written under it.
    const collectorId = randomUUID();
    const deliveries: Promise<void>[] = [];
    const feed = createDrillFeed(app.storage.drills, (c) => {
      const n = app.fleet.sendDrill(c);
      if (n > 0 && c.step_ms > 0) deliveries.push(app.storage.drills.recordDelivery(c.id, collectorId, n, app.clock.now()));
      return n;
    }, { freshMs });
    let polling: Promise<number> | null = null;
    const poll = (now = app.clock.now()) => {
      polling ??= feed.poll(now).then(async (n) => {
        await Promise.all(deliveries.splice(0));
        return n;
      }).finally(() => {
        polling = null;
      });
      return polling;
    };
    /** A poll that reads after a write: one already running may have read before it. */
    const pollAfterWrite = async (now: number) => {
      await polling?.catch(() => undefined);
      return poll(now);
    };
    // The feed counts this collector last wrote, and when: rewritten when they change, else every FEEDS_REPORT_MS.
    let written = { text: '', at: -Infinity };
    const writeFeeds = async (now = app.clock.now()) => {
      const feeds = app.fleet.feedServices();
      const text = JSON.stringify([...feeds].sort());
      if (text === written.text && now - written.at < FEEDS_REPORT_MS) return;
      await app.storage.drills.writeFeeds(collectorId, feeds, now);
      written = { text, at: now };
    };
    /** Services with a feed open now, on this collector or (written in the last FEEDS_STALE_MS) any other. */
    const subscribed = async (now: number) => {
      const all = await app.storage.drills.feedsOf(now - FEEDS_STALE_MS, collectorId);
      for (const [service, n] of app.fleet.feedServices()) all.set(service, (all.get(service) ?? 0) + n);
      return all;
    };
    const judgeDue = async (now = app.clock.now()) => {
      const done = [...(await service.endUnreached(now, freshMs)), ...(await service.judgeDue(now))];
      for (const d of done) app.log.info({ drill: d.id, outcome: d.report.outcome }, 'drill run judged');
      return done;
    };
    app.decorate('drills', { service, poll, judgeDue });

    const judging = leaderJob({
      intervalMs: cfg.check_interval_ms,
      isLeader: () => app.storage.lease.isHeld(),
      run: () => judgeDue(),
      onError: (err) => app.log.error({ err }, 'judging drill runs failed'),
    });
    let ticker: NodeJS.Timeout | undefined;
    if (cfg.enabled && app.config.fleet.enabled) {
      app.addHook('onReady', async () => {
        ticker = setInterval(() => {
          void poll().catch((err) => app.log.warn({ err }, 'reading drill runs failed'));
          void writeFeeds().catch((err) => app.log.warn({ err }, 'writing the feed counts failed'));
        }, app.config.fleet.poll_interval_ms);
        ticker.unref();
        judging.start();
      });
    }
    app.addHook('onClose', async () => {
      clearInterval(ticker);
      await judging.close();
      await polling?.catch(() => undefined);
      // Gone at once rather than when they turn stale: another collector refuses drills of these services now.
      if (cfg.enabled && app.config.fleet.enabled) await app.storage.drills.writeFeeds(collectorId, new Map(), app.clock.now()).catch(() => undefined);
    });

    const admin = app.requireRight('admin');
    const noSubscribers = (name: string, feeds: Map<string, number>) => {
      const list = [...feeds].filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `"${s}" (${n} feed${n === 1 ? '' : 's'})`);
      return `no instance of service "${name}" is subscribed for drills (an SDK with telemetry.service "${name}" and drills.enabled); `
        + `${list.length ? `subscribed: ${list.join(', ')}` : 'no service is subscribed'}; schedule_anyway: true starts it regardless`;
    };
    const enabled = () => {
      if (!cfg.enabled) throw new BreakerboxError('BB_ERR_DRILL_DISABLED');
      if (!app.config.fleet.enabled) throw new BreakerboxError('BB_ERR_FLEET_DISABLED', 'drills reach the instances over the fleet feed, which is turned off (fleet.enabled)');
    };

    typed.post('/api/drills', { onRequest: admin, schema: StartDrillRoute }, async (request, reply) => {
      enabled();
      const body = request.body;
      if (body.minutes !== undefined && body.step_s !== undefined) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'give minutes or step_s, not both', { path: '/step_s' });
      const stepS = body.step_s ?? (body.minutes !== undefined ? Math.round(body.minutes * 60) : DEFAULT_STEP_S);
      if (stepS < 1) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'a drill runs at least 1 s', { path: '/minutes' });
      if (stepS > cfg.max_step_s) throw new BreakerboxError('BB_ERR_QUERY_INVALID', `one drill runs at most drills.max_step_s (${cfg.max_step_s} s)`, { path: body.step_s !== undefined ? '/step_s' : '/minutes' });
      const now = app.clock.now();
      // One run per service at a time: an instance runs one command's steps, and two runs' telemetry could not be told apart.
      const [latest] = await app.storage.drills.listRuns(body.service, 1);
      if (latest && latest.endsAt > now) throw new BreakerboxError('BB_ERR_DRILL_RUNNING', `drill ${latest.id} of ${body.service} runs until ${new Date(latest.endsAt).toISOString()}`);
      if (!body.schedule_anyway) {
        const feeds = await subscribed(now);
        if (!feeds.get(body.service)) throw new BreakerboxError('BB_ERR_DRILL_NO_SUBSCRIBERS', noSubscribers(body.service, feeds), { path: '/body/service' });
      }
      const by = request.principal?.name ?? null;
      const run = await service.start({ service: body.service, ...(body.kinds ? { kinds: body.kinds } : {}), ...(body.keys ? { keys: body.keys } : {}), stepMs: stepS * 1000, by }, now);
      request.log.info({ audit: 'drill_start', drill: run.id, service: run.service, kinds: run.kinds, step_ms: run.stepMs, by }, 'drill started');
      const sent = await pollAfterWrite(now);
      return reply.code(201).send({ run: runView(run, now), sent_to: sent });
    });

    typed.post('/api/drills/:id/stop', { onRequest: admin, schema: StopDrillRoute }, async (request) => {
      enabled();
      const now = app.clock.now();
      const by = request.principal?.name ?? null;
      const run = await service.stop(request.params.id, by, now);
      if (run === null) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no drill run with this id');
      if (run === false) throw new BreakerboxError('BB_ERR_DRILL_ENDED');
      request.log.info({ audit: 'drill_stop', drill: run.id, by }, 'drill stopped');
      return { run: runView(run, now), sent_to: await pollAfterWrite(now) };
    });

    typed.get('/api/drills', { onRequest: admin, schema: DrillListRoute }, async (request) => {
      const limit = Math.min(500, Number(request.query.limit ?? 50));
      const now = app.clock.now();
      const runs = await app.storage.drills.listRuns(request.query.service ?? null, limit);
      return { runs: runs.map((r) => runView(r, now)), subscribers: app.fleet.subscribers() };
    });

    typed.get('/api/drills/:id', { onRequest: admin, schema: DrillRunRoute }, async (request) => {
      const run = await app.storage.drills.getRun(request.params.id);
      if (!run) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no drill run with this id');
      return { run: runView(run, app.clock.now()) };
    });
  },
  { name: 'breakerbox-drills', dependencies: ['breakerbox-fleet', 'breakerbox-storage'] },
);

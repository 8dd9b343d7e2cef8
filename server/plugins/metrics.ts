import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { createCollectorMetrics, type CollectorMetrics } from '../metrics/collector-health.ts';
import { createLatestStates, unpackStates, type LatestStates } from '../metrics/latest-states.ts';
import { metricsPage } from '../metrics/page.ts';
import { MetricsRoute } from '../schemas/metrics.ts';
import { keysInUse } from '../lifecycle/models-in-use.ts';
import { createServedChangeCounter } from '../metrics/served-change-counter.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The collector's own health figures; plugins count their work through it (one call per site). */
    collectorMetrics: CollectorMetrics;
    /** The latest state gauges over the metrics window: the alert pass records its own, a scrape reuses them while fresh. */
    metricsStates: LatestStates;
  }
}

/** How long a scrape waits for the page before it. */
const QUEUE_WAIT_MS = 30_000;
const DAY = 86_400_000;

/**
 * Runs `work` with the socket's idle timeout (`http.connection_timeout_ms`) off: the page's
 * first chunk has left, and nothing more can be sent until the states are judged, which on a
 * large fleet of a loaded collector can take longer than that timeout.
 */
async function withoutIdleTimeout<T>(socket: Socket | undefined, work: () => Promise<T>): Promise<T> {
  // Under app.inject the socket is a stand-in without timeouts.
  if (typeof socket?.setTimeout !== 'function') return work();
  const idle = socket.timeout ?? 0;
  socket.setTimeout(0);
  try {
    return await work();
  } finally {
    if (!socket.destroyed) socket.setTimeout(idle);
  }
}

/**
 * Decorates `collectorMetrics`, the registry other plugins count into. Registered right
 * after the database, before the plugins that count.
 */
export const collectorMetricsPlugin = fp(
  async (app) => {
    app.decorate(
      'collectorMetrics',
      createCollectorMetrics({
        fileSizes: () => app.storage.metrics.sizes(),
        // The alerts plugin registers later; at scrape time it is there.
        deliveries: () => (app.hasDecorator('alerts') ? app.alerts.dispatcher.counts() : []),
        ingestRefusals: () => (app.hasDecorator('ingestLimits') ? app.ingestLimits.snapshot() : {}),
        leader: () => app.storage.lease.isHeld(),
        // The fleet plugin registers later; at scrape time it is there.
        fleetSubscribers: () => (app.hasDecorator('fleet') ? app.fleet.subscribers() : 0),
      }),
    );
    const { state_gauges: stateGauges, window_s: windowS } = app.config.metrics;
    app.decorate('metricsStates', createLatestStates(stateGauges ? windowS * 1000 : null));
  },
  { name: 'breakerbox-collector-metrics' },
);

/**
 * `GET /metrics`: Prometheus text exposition (docs/metrics.md), streamed. Needs a `read`
 * token unless `metrics.open` is set for a local scrape. Registered after the verdicts and
 * alerts plugins.
 */
export const metricsPlugin = fp(
  async (app) => {
    const { open, window_s: windowS, max_series: maxSeries, state_gauges: stateGauges } = app.config.metrics;
    // States judged within one alert interval (by the leader's alert pass, or by the previous
    // scrape) are shown as they are, with their age: judging every key again costs seconds per
    // 10,000 keys (docs/metrics.md, "Cost of a scrape").
    const maxAgeMs = app.config.alerts.interval_s * 1000;
    const states = async () => {
      if (!stateGauges) return null;
      const now = app.clock.now();
      const kept = app.metricsStates.fresh(now, maxAgeMs);
      if (kept) return { byKey: kept.byKey, ageSeconds: (now - kept.to) / 1000 };
      // Judged off the event loop by the read worker when it runs (seconds of synchronous work on a large fleet).
      const byKey = unpackStates(await app.fleetReads.states({ from: now - windowS * 1000, to: now }));
      app.metricsStates.record(now, windowS * 1000, () => byKey);
      return { byKey, ageSeconds: 0 };
    };
    const retirements = async () => {
      // Only keys with a calendar entry; with none among the known keys the week of rollups is not read.
      const now = app.clock.now();
      const out = new Map<string, { provider: string; model: string; seconds: number }>();
      for (const k of await keysInUse(app.storage, app.retirements, now - app.config.alerts.rules.model_retiring.traffic_days * DAY, now, { datedOnly: true })) {
        if (!k.retirement) continue;
        out.set(`${k.key.provider}\n${k.key.model}`, { provider: k.key.provider, model: k.key.model, seconds: Math.round((k.retirement.shutdownAt - now) / 1000) });
      }
      return [...out.values()];
    };
    // Counted scrape by scrape from the sightings since the previous one (never all history).
    const counter = createServedChangeCounter(app.storage);
    const servedChanges = () => counter.advance(app.clock.now());
    // One page is built at a time (a Prometheus HA pair scrapes together): memory stays that of one
    // page. A client that stops reading holds its turn for at most QUEUE_WAIT_MS.
    let queue: Promise<void> = Promise.resolve();
    async function* oneAtATime(socket: Socket | undefined): AsyncGenerator<string> {
      let release!: () => void;
      const previous = queue;
      queue = new Promise<void>((resolve) => (release = resolve));
      try {
        await Promise.race([previous, sleep(QUEUE_WAIT_MS, undefined, { ref: false })]);
        yield* metricsPage({ health: app.collectorMetrics, storage: app.storage, states: () => withoutIdleTimeout(socket, states), maxSeries, retirements, servedChanges });
      } finally {
        release();
      }
    }
    // The page is a text stream, which the serialiser never sees: the schema documents it.
    app.get('/metrics', { schema: MetricsRoute, ...(open ? {} : { onRequest: app.requireRight('read') }) }, async (request, reply) => {
      const page = Readable.from(oneAtATime(request.raw.socket as Socket | undefined), { objectMode: false });
      return reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(page);
    });
  },
  { name: 'breakerbox-metrics', dependencies: ['breakerbox-collector-metrics', 'breakerbox-verdicts'] },
);

import fp from 'fastify-plugin';
import { collectMetrics } from '../metrics/collect.ts';

/**
 * `GET /metrics`: Prometheus text exposition of the derived numbers (docs/api.md). Needs a
 * `read` token unless `metrics.open` is set for a local scrape. Registered after the
 * verdicts and alerts plugins.
 */
export const metricsPlugin = fp(
  async (app) => {
    const { open, window_s: windowS } = app.config.metrics;
    app.get('/metrics', open ? {} : { onRequest: app.requireRight('read') }, async (_request, reply) => {
      const body = collectMetrics({ db: app.db, verdicts: app.verdicts, windowS, deliveryCounts: () => app.alerts.dispatcher.counts() }, app.clock.now());
      return reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(body);
    });
  },
  { name: 'breakerbox-metrics' },
);

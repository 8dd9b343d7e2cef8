import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config/schema.ts';
import { systemClock, type ServerClock } from './clock.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { tracingPlugin } from './plugins/tracing.ts';
import { storagePlugin } from './plugins/storage.ts';
import { authPlugin } from './plugins/auth.ts';
import { ingestPlugin } from './plugins/ingest.ts';
import { otlpPlugin } from './plugins/otlp.ts';
import { queryPlugin } from './plugins/query.ts';
import { samplesPlugin } from './plugins/samples.ts';
import { shadowPlugin } from './plugins/shadow.ts';
import { ticketPlugin } from './plugins/ticket.ts';
import { verdictsPlugin } from './plugins/verdicts.ts';
import { suspicionPlugin } from './plugins/suspicion.ts';
import { alertsPlugin } from './plugins/alerts.ts';
import { lifecyclePlugin } from './plugins/lifecycle.ts';
import { fleetPlugin } from './plugins/fleet.ts';
import { drillsPlugin } from './plugins/drills.ts';
import { collectorMetricsPlugin, metricsPlugin } from './plugins/metrics.ts';
import { healthPlugin } from './plugins/health.ts';
import { sessionPlugin } from './plugins/session.ts';
import { dashboardPlugin } from './plugins/dashboard.ts';
import { apiHeadersPlugin } from './plugins/api-headers.ts';
import { redactLogLine, redactUrl } from './log-redact.ts';
import { REDACTED } from '@breakerbox/protocol';
import { loadCalendar, type RetirementCalendar } from './lifecycle/calendar.ts';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** The collector's clock: every time read in `server/` goes through it. */
    clock: ServerClock;
    /** The retirement calendar (operator entries and the shipped file), validated at start (docs/lifecycle.md). */
    retirements: RetirementCalendar;
  }
}

/** Options for building the collector app. */
export interface AppOptions {
  config: Config;
  /** Fastify's logger option; tests pass false. */
  logger?: FastifyServerOptions['logger'];
  /** The clock (default: the wall clock); tests and the demo pass a compressed or manual one. */
  clock?: ServerClock;
}

/** Log settings: JSON through pino, never a credential (header, cookie, `?token=`, anything the protocol's secret catalogue knows) or a request body. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    serializers: {
      req: (request: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', 'body'],
      censor: REDACTED,
    },
    // Every line, whatever logged it, passes the protocol's redactor before it is written.
    hooks: { streamWrite: redactLogLine },
  };
}

/**
 * Builds the collector: one fastify plugin per concern, registered in dependency order.
 * Nothing here listens or reads the environment; `main.ts` does that.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { http } = options.config;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(options.config.log_level),
    // Slow or stalled clients are cut off: a byte-a-second sender cannot hold a socket for long.
    requestTimeout: http.request_timeout_ms,
    connectionTimeout: http.connection_timeout_ms,
    keepAliveTimeout: http.keep_alive_timeout_ms,
    maxRequestsPerSocket: http.max_requests_per_socket,
    http: { headersTimeout: http.headers_timeout_ms, connectionsCheckingInterval: http.check_interval_ms },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, allErrors: false } },
  });
  app.decorate('config', options.config);
  app.decorate('clock', options.clock ?? systemClock);
  app.decorate('retirements', loadCalendar(options.config.lifecycle));
  await app.register(errorsPlugin);
  await app.register(apiHeadersPlugin);
  await app.register(tracingPlugin);
  // The registry first: the storage's background jobs count into it (it reads storage sizes only at scrape time).
  await app.register(collectorMetricsPlugin);
  await app.register(storagePlugin);
  await app.register(authPlugin);
  await app.register(healthPlugin);
  await app.register(ingestPlugin);
  await app.register(otlpPlugin);
  await app.register(suspicionPlugin);
  await app.register(verdictsPlugin);
  await app.register(queryPlugin);
  await app.register(samplesPlugin);
  await app.register(shadowPlugin);
  await app.register(ticketPlugin);
  await app.register(lifecyclePlugin);
  await app.register(fleetPlugin);
  await app.register(drillsPlugin);
  await app.register(alertsPlugin);
  await app.register(metricsPlugin);
  await app.register(sessionPlugin);
  await app.register(dashboardPlugin);
  return app;
}

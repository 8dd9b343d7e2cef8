/**
 * The collector of the demo: the real server (`server/main.ts`) with the dashboard, on a
 * fresh SQLite file in a temporary folder, configured through its ordinary config file
 * with thresholds short enough for phases of a few minutes (or seconds, with `--fast`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../server/config/load.ts';
import { startServer, type RunningServer } from '../server/main.ts';

/** Closed → open cycles of one instance within the flapping window that fire the alert. */
const FLAP_FIRE_OPENS = 4;
/** At or below this many in the window it resolves. */
const FLAP_RESOLVE_OPENS = 1;

/**
 * The flapping rule over `windowS`: whatever the window, 4 trips of one instance inside it
 * fire and 1 or none resolve (the rule's thresholds are per hour). The alert resolves about
 * one window after the flapping stops: 5 minutes in the normal timeline, 1 minute (the
 * shortest window the collector accepts) with `--fast`, whose flapping phase's five bursts
 * fit in it.
 */
export function flappingSettings(windowS: number) {
  return { window_s: windowS, fire_opens_per_hour: (FLAP_FIRE_OPENS * 3600) / windowS, resolve_opens_per_hour: (FLAP_RESOLVE_OPENS * 3600) / windowS };
}

/** What the demo tunes; everything else keeps the collector's documented defaults. */
export const DEMO_COLLECTOR_SETTINGS = {
  log_level: 'warn',
  verdicts: {
    min_calls: 10,
    degraded_error_share: 0.1,
    degraded_slow_share: 0.2,
    // Probes run every 2 s: the newest whole minute holding three of them decides a location.
    min_probes: 2,
    probe_recent: 3,
    probe_recent_lookback_s: 120,
    probe_failing_share: 0.5,
    local_min_calls: 5,
    instance_lookback_s: 120,
  },
  alerts: {
    verdict_window_s: 120,
    rules: {
      // The normal timeline's window; `--fast` looks back one minute (`flappingSettings`).
      flapping: flappingSettings(300),
      open_share: { window_s: 60, fire_share: 0.1, resolve_share: 0.05 },
      fallback_failing: { window_s: 60, min_failures: 1 },
      probe_failing: { consecutive: 3, resolve_consecutive: 2, lookback_s: 120 },
      // A phase's page resolves within a minute or so of its end, like open_share's.
      clients_degraded: { window_s: 60, min_calls: 10 },
      // The demo's retirement is minutes away, not days: with the default (7) it would be
      // critical from the start; 0 shows the warning turning critical in place on the date.
      // Once the service has migrated, the page resolves a minute after the last call.
      model_retiring: { critical_days: 0, retired_calls_s: 60 },
      // draft-reply answers with its template (level 4) whenever both its models fail: a
      // serving_degraded page for it resolves a minute after the phase, not 15, like the rest.
      serving_degraded: { resolve_s: 60 },
    },
  },
} as const;

/** A retirement on the demo collector's calendar (`lifecycle.retirements`, docs/lifecycle.md). */
export interface DemoRetirement {
  provider: string;
  model: string;
  /** The shutdown instant, ISO 8601. */
  shutdown: string;
  successor: string;
}

/** Options of `startCollector`. */
export interface CollectorOptions {
  /** Folder for the database and config file (the caller creates and removes it). */
  dir: string;
  port: number;
  host: string;
  /** Alert evaluation period, s (BREAKERBOX_ALERT_INTERVAL_S wins when set). */
  alertIntervalS: number;
  /** Look-back of the flapping alert, s (≥ 60, the collector's minimum). */
  flappingWindowS: number;
  /** The operator's environment, for the collector's own variables (BREAKERBOX_ALERT_INTERVAL_S, OTEL_…). */
  env: Record<string, string | undefined>;
  /** The calendar's operator entries (the shipped calendar is read as well). */
  retirements: DemoRetirement[];
}

/** A running collector and the tokens the demo made. */
export interface DemoCollector {
  url: string;
  /** Token with the `read` right: sign in to the dashboard with it. */
  readToken: string;
  /** Token with the `ingest` right, for the fleet and the probers. */
  ingestToken: string;
  server: RunningServer;
  close(): Promise<void>;
}

/** Starts the collector on `dir/breakerbox.db`. */
export async function startCollector(options: CollectorOptions): Promise<DemoCollector> {
  const file = join(options.dir, 'collector.json');
  const settings = {
    ...DEMO_COLLECTOR_SETTINGS,
    alerts: {
      ...DEMO_COLLECTOR_SETTINGS.alerts,
      interval_s: options.alertIntervalS,
      rules: { ...DEMO_COLLECTOR_SETTINGS.alerts.rules, flapping: flappingSettings(options.flappingWindowS) },
    },
    lifecycle: { retirements: options.retirements },
  };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  const env: Record<string, string | undefined> = {
    BREAKERBOX_ALERT_INTERVAL_S: options.env.BREAKERBOX_ALERT_INTERVAL_S,
    OTEL_EXPORTER_OTLP_ENDPOINT: options.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
  const config = loadConfig({
    env,
    flags: { config: file, db: join(options.dir, 'breakerbox.db'), port: String(options.port), host: options.host },
  });
  // The first-start admin token message is not for demo users; the tokens below are.
  const server = await startServer(config, { handleSignals: false, print: () => undefined });
  const read = await server.app.storage.tokens.create('demo-dashboard', ['read']);
  const ingest = await server.app.storage.tokens.create('demo-ingest', ['ingest']);
  return {
    url: server.url,
    readToken: read.secret,
    ingestToken: ingest.secret,
    server,
    close: () => server.close(),
  };
}

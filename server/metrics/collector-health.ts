import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { packageRoot } from '../package-root.ts';

/** Where the health figures that live outside this process's memory come from, read at scrape time. */
export interface HealthSources {
  /** Database and WAL file sizes in bytes. */
  fileSizes(): Promise<{ database: number; wal: number }>;
  /** Finished notification deliveries since the process started, per notifier and outcome. */
  deliveries(): { notifier: string; status: string; count: number }[];
  /** Requests each ingest limit refused (wholly or in part) since the process started, by limit name. */
  ingestRefusals(): Record<string, number>;
  /** Whether this collector holds the leader lease now (always on SQLite). */
  leader(): boolean;
  /** Fleet feeds (GET /v1/fleet) this collector holds open now. */
  fleetSubscribers?(): number;
}

/**
 * The collector's own health, counted by the plugins that do the work (one call per site)
 * and exposed at the top of `/metrics` through prom-client. One registry per app: no global
 * default registry, so two collectors in one process (tests) never share figures.
 */
export interface CollectorMetrics {
  readonly registry: Registry;
  /** An ingest request finished with this HTTP status after `seconds`. */
  ingestRequest(status: number, seconds: number): void;
  /** A stored batch: its events by type; a duplicate batch stores nothing. */
  ingestBatch(events: readonly { type: string }[], duplicate: boolean): void;
  /** One alert evaluation pass took `ms`. */
  alertEvaluation(ms: number): void;
  /** Times a background job (`rollup`: hourly aggregates, `retention`: pruning) until the promise settles. */
  timeJob<T>(job: 'rollup' | 'retention', work: Promise<T>): Promise<T>;
  /** Fleet decisions written to subscribers' feeds (one per decision per subscriber), by kind. */
  fleetSent(kind: string, n: number): void;
  /** Fleet decisions SDK instances reported applying and ignoring (the `fleet` field of their batches). */
  fleetReported(applied: number, ignored: number): void;
  /** What the fleet part of the last `/metrics` page wrote and dropped under the series cap. */
  readonly exporter: { series: number; droppedSeries: number; droppedKeys: number };
}

/** Latency buckets for the collector's own work, in seconds (ingest of a batch, an alert pass, a job). */
const WORK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const outcomeOf = (status: number) => (status < 300 ? 'accepted' : status < 500 ? 'refused' : 'failed');

/** Creates the registry with the process and Node.js defaults and the collector's own metrics. */
export function createCollectorMetrics(sources: HealthSources): CollectorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges with a counter's suffix (promtool rejects them); nodejs_active_handles and friends say the same.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);

  new Gauge({
    name: 'breakerbox_build_info',
    help: 'Always 1; the labels say which collector build is running.',
    labelNames: ['version', 'node_version', 'protocol'],
    registers: [registry],
  }).set({ version: packageVersion(), node_version: process.version, protocol: '1' }, 1);

  new Gauge({
    name: 'breakerbox_leader',
    help: 'Whether this collector holds the leader lease (1) and so evaluates alerts, pages, aggregates and prunes; 0 on the others. Always 1 on SQLite.',
    registers: [registry],
    collect() {
      this.set(sources.leader() ? 1 : 0);
    },
  });

  const requests = new Counter({
    name: 'breakerbox_ingest_requests_total',
    help: 'Telemetry ingest requests (POST /v1/telemetry) by outcome (accepted, refused, failed) and HTTP status.',
    labelNames: ['outcome', 'status'],
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'breakerbox_ingest_request_duration_seconds',
    help: 'Time to answer an ingest request, from its first byte to the answer (validation and the batch transaction included).',
    labelNames: ['outcome'],
    buckets: WORK_BUCKETS,
    registers: [registry],
  });
  const events = new Counter({
    name: 'breakerbox_ingest_events_total',
    help: 'Telemetry events stored, by event type.',
    labelNames: ['type'],
    registers: [registry],
  });
  const duplicates = new Counter({
    name: 'breakerbox_ingest_duplicate_batches_total',
    help: 'Batches acknowledged as duplicates of an already stored batch_id (a sender retry); nothing stored.',
    registers: [registry],
  });
  const alertSeconds = new Histogram({
    name: 'breakerbox_alert_evaluation_duration_seconds',
    help: 'Time one alert evaluation pass took.',
    buckets: WORK_BUCKETS,
    registers: [registry],
  });
  const jobSeconds = new Histogram({
    name: 'breakerbox_job_duration_seconds',
    help: 'Time a background job pass took, by kind: rollup (hourly aggregates) or retention (pruning expired rows).',
    labelNames: ['kind'],
    buckets: WORK_BUCKETS,
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: 'breakerbox_job_failures_total',
    help: 'Background job passes that failed, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
  new Gauge({
    name: 'breakerbox_database_size_bytes',
    help: 'Size of the SQLite database file.',
    registers: [registry],
    async collect() {
      this.set((await sources.fileSizes()).database);
    },
  });
  new Gauge({
    name: 'breakerbox_database_wal_size_bytes',
    help: 'Size of the SQLite write-ahead log (grows when checkpoints fall behind).',
    registers: [registry],
    async collect() {
      this.set((await sources.fileSizes()).wal);
    },
  });
  new Counter({
    name: 'breakerbox_notification_deliveries_total',
    help: 'Notification deliveries finished since the process started, by notifier and outcome (ok, failed).',
    labelNames: ['notifier', 'outcome'],
    registers: [registry],
    collect() {
      // The dispatcher owns these counts; copy them at scrape time instead of counting twice.
      this.reset();
      for (const d of sources.deliveries()) this.inc({ notifier: d.notifier, outcome: d.status }, d.count);
    },
  });
  new Counter({
    name: 'breakerbox_ingest_limit_refusals_total',
    help: 'Ingest requests (protocol v1 and OTLP) a limit refused, wholly or some of their keys, by limit (rate_limit, body_limit_bytes, new_keys_per_token, live_keys_per_source, invalid, storage_unavailable, ...).',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      // The ingest plugin owns these counts (app.ingestLimits); copied at scrape time.
      this.reset();
      for (const [limit, n] of Object.entries(sources.ingestRefusals())) this.inc({ limit }, n);
    },
  });
  const fleetSent = new Counter({
    name: 'breakerbox_fleet_decisions_sent_total',
    help: 'Fleet decisions (docs/fleet.md) written to subscribed SDK instances, one per decision per feed, renewals included, by kind (outage, recovered, drain, release).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const fleetReported = new Counter({
    name: 'breakerbox_fleet_decisions_reported_total',
    help: 'Fleet decisions SDK instances reported, by outcome: applied (a breaker transition) or ignored (unknown key, no fallback, manual override, nothing to do).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const kind of ['outage', 'recovered', 'drain', 'release']) fleetSent.inc({ kind }, 0);
  for (const outcome of ['applied', 'ignored']) fleetReported.inc({ outcome }, 0);
  new Gauge({
    name: 'breakerbox_fleet_subscribers',
    help: 'Fleet feeds (GET /v1/fleet) this collector holds open.',
    registers: [registry],
    collect() {
      this.set(sources.fleetSubscribers?.() ?? 0);
    },
  });
  // `kind`, not `job`: Prometheus owns the job label (it names the scrape target).
  for (const kind of ['rollup', 'retention']) {
    jobSeconds.zero({ kind });
    jobFailures.inc({ kind }, 0);
  }

  const exporter = { series: 0, droppedSeries: 0, droppedKeys: 0 };
  return {
    registry,
    exporter,
    ingestRequest(status, seconds) {
      const outcome = outcomeOf(status);
      requests.inc({ outcome, status: String(status) });
      requestSeconds.observe({ outcome }, seconds);
    },
    ingestBatch(batchEvents, duplicate) {
      if (duplicate) {
        duplicates.inc();
        return;
      }
      const byType = new Map<string, number>();
      for (const e of batchEvents) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
      for (const [type, n] of byType) events.inc({ type }, n);
    },
    fleetSent(kind, n) {
      if (n > 0) fleetSent.inc({ kind }, n);
    },
    fleetReported(applied, ignored) {
      if (applied > 0) fleetReported.inc({ outcome: 'applied' }, applied);
      if (ignored > 0) fleetReported.inc({ outcome: 'ignored' }, ignored);
    },
    alertEvaluation(ms) {
      alertSeconds.observe(ms / 1000);
    },
    async timeJob(job, work) {
      const end = jobSeconds.startTimer({ kind: job });
      try {
        return await work;
      } catch (err) {
        jobFailures.inc({ kind: job });
        throw err;
      } finally {
        end();
      }
    },
  };
}

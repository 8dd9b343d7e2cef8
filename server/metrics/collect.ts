import type { BreakerKey } from '@breakerbox/protocol';
import type { Db } from '../storage/database.ts';
import { ERROR_CLASSES } from '@breakerbox/protocol';
import type { VerdictEngine } from '../verdicts/verdict-engine.ts';
import { VERDICTS } from '../verdicts/types.ts';
import { K } from '../verdicts/counters.ts';
import { Exposition } from './exposition.ts';

/** What the metrics page reads. */
export interface MetricsSources {
  db: Db;
  verdicts: VerdictEngine;
  windowS: number;
  /** Finished deliveries since the process started, per notifier and status. */
  deliveryCounts(): { notifier: string; status: string; count: number }[];
}

const keyLabels = (k: BreakerKey) => ({ provider: k.provider, endpoint: k.endpoint, model: k.model, region: k.region ?? '' });
const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

/**
 * Builds the `/metrics` page: the derived numbers per key (and key × service), probes per
 * location, cost per successful task per operation, the verdict as a 0/1 gauge per value,
 * alert counts and delivery counters. Windowed figures are gauges over the last `windowS`.
 */
export function collectMetrics(src: MetricsSources, now = Date.now()): string {
  const range = { from: now - src.windowS * 1000, to: now };
  const analyses = src.verdicts.analyse(range);
  const services = new Map((src.db.prepare('SELECT id, name FROM services').all() as { id: number; name: string }[]).map((r) => [r.id, r.name]));
  const w = `over the last ${src.windowS} s`;
  const e = new Exposition()
    .family('breakerbox_key_calls', 'gauge', `Calls sent ${w}.`)
    .family('breakerbox_key_error_ratio', 'gauge', `Failed calls of a class over calls ${w}.`)
    .family('breakerbox_key_slow_ratio', 'gauge', `Slow calls over calls ${w}.`)
    .family('breakerbox_key_open_ratio', 'gauge', `Share of instance-time the breaker was open or half-open ${w}.`)
    .family('breakerbox_key_transitions_per_hour', 'gauge', `Breaker transitions per hour ${w}.`)
    .family('breakerbox_key_bulkhead_rejections', 'gauge', `Bulkhead rejections ${w}.`)
    .family('breakerbox_key_short_circuited', 'gauge', `Calls refused while open ${w}.`)
    .family('breakerbox_key_retry_ratio', 'gauge', `Retries over calls ${w}.`)
    .family('breakerbox_key_fallback_invocations', 'gauge', `Fallback invocations of the services reporting the key ${w}.`)
    .family('breakerbox_key_fallback_failures', 'gauge', `Fallback failures of the services reporting the key ${w}.`)
    .family('breakerbox_key_half_open_success_ratio', 'gauge', `Half-open probe calls that succeeded ${w}.`)
    .family('breakerbox_key_latency_seconds', 'gauge', `Call latency quantiles from merged histograms ${w}.`)
    .family('breakerbox_key_instances', 'gauge', `Instances reporting the key ${w}.`)
    .family('breakerbox_key_open_instances', 'gauge', 'Instances whose breaker for the key is open now.')
    .family('breakerbox_key_verdict', 'gauge', `1 for the key's verdict ${w}, 0 for the others.`)
    .family('breakerbox_key_service_calls', 'gauge', `Calls per key and service ${w}.`)
    .family('breakerbox_key_service_error_ratio', 'gauge', `Failed calls over calls per key and service ${w}.`)
    .family('breakerbox_probe_success_ratio', 'gauge', `Warm probes that succeeded, per location ${w}.`)
    .family('breakerbox_probe_latency_seconds', 'gauge', `Probe total latency quantiles per location ${w}.`)
    .family('breakerbox_operation_cost_per_success_usd', 'gauge', `Spend of all attempts over completed tasks per operation ${w}.`)
    .family('breakerbox_alerts', 'gauge', 'Pending and firing alerts by state and severity.')
    .family('breakerbox_notification_deliveries_total', 'counter', 'Notification deliveries finished since the process started.');

  for (const a of analyses) {
    const k = keyLabels(a.info.key);
    const c = a.clients;
    e.sample('breakerbox_key_calls', k, c.calls);
    if (c.calls > 0) for (const cls of ERROR_CLASSES) e.sample('breakerbox_key_error_ratio', { ...k, class: cls }, c.errors[cls] / c.calls);
    e.sample('breakerbox_key_slow_ratio', k, c.slow_share);
    e.sample('breakerbox_key_open_ratio', k, c.open_share);
    e.sample('breakerbox_key_transitions_per_hour', k, c.transitions_per_hour);
    e.sample('breakerbox_key_bulkhead_rejections', k, c.rejected);
    e.sample('breakerbox_key_short_circuited', k, c.short_circuited);
    e.sample('breakerbox_key_retry_ratio', k, c.retry_ratio);
    e.sample('breakerbox_key_fallback_invocations', k, c.fallback.invoked);
    e.sample('breakerbox_key_fallback_failures', k, c.fallback.failed);
    e.sample('breakerbox_key_half_open_success_ratio', k, c.half_open.success_share);
    e.sample('breakerbox_key_latency_seconds', { ...k, percentile: '50' }, seconds(c.latency_ms.p50));
    e.sample('breakerbox_key_latency_seconds', { ...k, percentile: '95' }, seconds(c.latency_ms.p95));
    e.sample('breakerbox_key_latency_seconds', { ...k, percentile: '99' }, seconds(c.latency_ms.p99));
    e.sample('breakerbox_key_instances', k, a.state.instances);
    e.sample('breakerbox_key_open_instances', k, a.state.open);
    for (const v of VERDICTS) e.sample('breakerbox_key_verdict', { ...k, verdict: v }, v === a.decision.verdict ? 1 : 0);
    for (const [serviceId, sums] of a.serviceSums) {
      const labels = { ...k, service: services.get(serviceId) ?? String(serviceId) };
      const calls = sums[K.calls]!;
      let failed = 0;
      for (let i = 0; i < ERROR_CLASSES.length; i++) failed += sums[K.errors + i]!;
      e.sample('breakerbox_key_service_calls', labels, calls);
      e.sample('breakerbox_key_service_error_ratio', labels, calls > 0 ? failed / calls : null);
    }
    for (const [location, p] of Object.entries(a.probes)) {
      const labels = { ...k, location };
      e.sample('breakerbox_probe_success_ratio', labels, p.success_share);
      e.sample('breakerbox_probe_latency_seconds', { ...labels, percentile: '50' }, seconds(p.latency_ms.p50));
      e.sample('breakerbox_probe_latency_seconds', { ...labels, percentile: '95' }, seconds(p.latency_ms.p95));
    }
  }

  const wholeSpan = Math.ceil((range.to - range.from) / 60_000) * 60_000;
  for (const op of src.verdicts.cost(range, wholeSpan).operations) {
    e.sample('breakerbox_operation_cost_per_success_usd', { operation: op.operation }, op.cost_per_success);
  }
  const alertCounts = src.db
    .prepare(`SELECT state, severity, COUNT(*) AS n FROM alerts WHERE state <> 'resolved' GROUP BY state, severity`)
    .all() as { state: string; severity: string; n: number }[];
  for (const state of ['pending', 'firing']) {
    for (const severity of ['info', 'warning', 'critical']) {
      e.sample('breakerbox_alerts', { state, severity }, alertCounts.find((r) => r.state === state && r.severity === severity)?.n ?? 0);
    }
  }
  for (const d of src.deliveryCounts()) e.sample('breakerbox_notification_deliveries_total', { notifier: d.notifier, status: d.status }, d.count);
  return e.toString();
}

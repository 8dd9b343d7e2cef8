import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Storage, TotalsRow, TransitionTotalsRow } from '../storage/storage.ts';
import { TASK_COLUMNS as TASK_COUNTERS } from '@breakerbox/protocol';
import type { CollectorMetrics } from './collector-health.ts';
import { ExpositionChunks, renderLabels, withLabel } from './exposition.ts';
import { KEY_FAMILIES, type KeySnapshot, type KeyStateNow } from './key-families.ts';

/** What one `/metrics` page is made from. */
export interface PageSources {
  health: CollectorMetrics;
  /** The storage parts a page reads: the totals and the unresolved alert counts. */
  storage: Pick<Storage, 'metrics' | 'alerts'>;
  /**
   * Current state per key id over the metrics window (breaker states, open share, verdict),
   * and how old that judgement is; null without state gauges.
   */
  states(): Promise<{ byKey: Map<number, KeyStateNow>; ageSeconds: number } | null>;
  /** At most this many series of the per-key families; keys past it are dropped whole. */
  maxSeries: number;
  /** Seconds to retirement (negative once retired) of each model in use with a calendar entry. */
  retirements(): Promise<{ provider: string; model: string; seconds: number }[]>;
  /** Served-model changes counted per provider and model (served-change-counter.ts); absent: the family is empty. */
  servedChanges?(): Promise<{ provider: string; model: string; changes: number }[]>;
}

/** Keys read per storage query: each query is short, and ingest runs between them. */
const KEYS_PER_READ = 1000;
/** Characters handed to the socket at a time. */
const CHUNK_CHARS = 256 * 1024;

const T = Object.fromEntries(TASK_COUNTERS.map((c, i) => [c, i])) as Record<string, number>;

function groupByKey<R extends { keyId: number }>(rows: R[]): Map<number, R[]> {
  const out = new Map<number, R[]>();
  for (const r of rows) {
    let list = out.get(r.keyId);
    if (!list) out.set(r.keyId, (list = []));
    list.push(r);
  }
  return out;
}

function snapshotOf(labels: string, totals: TotalsRow[], probes: TotalsRow[], transitions: TransitionTotalsRow[], state: KeyStateNow | null): KeySnapshot {
  const width = totals[0]?.values.length ?? 0;
  const sums = new Array<number>(width).fill(0);
  for (const t of totals) for (let i = 0; i < width; i++) sums[i]! += t.values[i]!;
  return {
    labels,
    sums,
    services: totals.map((t) => ({ labels: withLabel(labels, 'service', t.part), values: t.values })),
    probes: probes.map((p) => ({ labels: withLabel(labels, 'location', p.part), values: p.values })),
    transitions: transitions.map((t) => ({ labels: withLabel(withLabel(labels, 'to_state', t.toState), 'reason', t.reason), count: t.transitions })),
    state,
  };
}

/** The series a key costs on the page. */
function seriesOf(k: KeySnapshot): number {
  let n = 0;
  for (const f of KEY_FAMILIES) n += f.count(k);
  return n;
}

/**
 * Reads the fleet's totals in pages of keys and keeps the keys that fit under the series
 * cap, in key id order (oldest keys first, so the exported set is stable from scrape to
 * scrape). Memory is bounded by the cap, not by the number of keys.
 */
async function loadKeys(src: PageSources): Promise<{ keys: KeySnapshot[]; series: number; droppedSeries: number; droppedKeys: number; stateAge: number | null }> {
  const judged = await src.states();
  const states = judged?.byKey ?? new Map<number, KeyStateNow>();
  const keys: KeySnapshot[] = [];
  let series = 0;
  let droppedSeries = 0;
  let droppedKeys = 0;
  for (let after = 0; ; ) {
    const rows = await src.storage.metrics.keys(after, KEYS_PER_READ);
    if (rows.length === 0) break;
    const to = rows[rows.length - 1]!.id;
    const totals = groupByKey(await src.storage.metrics.keyTotals(after, to));
    const probes = groupByKey(await src.storage.metrics.probeTotals(after, to));
    const transitions = groupByKey(await src.storage.metrics.transitionTotals(after, to));
    for (const row of rows) {
      const t = totals.get(row.id) ?? [];
      const p = probes.get(row.id) ?? [];
      const state = states.get(row.id) ?? null;
      if (t.length === 0 && p.length === 0 && !state) continue;
      const labels = renderLabels({ provider: row.provider, endpoint: row.endpoint, model: row.model, region: row.region });
      const k = snapshotOf(labels, t, p, transitions.get(row.id) ?? [], state);
      const n = seriesOf(k);
      if (series + n > src.maxSeries) {
        droppedSeries += n;
        droppedKeys++;
        continue;
      }
      series += n;
      keys.push(k);
    }
    after = to;
    await nextTurn();
  }
  return { keys, series, droppedSeries, droppedKeys, stateAge: judged?.ageSeconds ?? null };
}

/**
 * The `/metrics` page as a stream of text chunks: the collector's own health first (so the
 * first byte leaves before the fleet is read), then one family at a time over every
 * admitted key, then operations, senders, alerts and what the cap dropped.
 */
export async function* metricsPage(src: PageSources): AsyncGenerator<string> {
  yield await src.health.registry.metrics();
  // Let the first chunk leave before the fleet is read (the stream reads ahead otherwise).
  await nextTurn();
  const { keys, series, droppedSeries, droppedKeys, stateAge } = await loadKeys(src);
  const out = new ExpositionChunks();

  for (const f of KEY_FAMILIES) {
    out.family(f.name, f.type, f.help);
    for (const k of keys) {
      f.write(k, out);
      if (out.length >= CHUNK_CHARS) {
        yield out.take();
        await nextTurn();
      }
    }
  }

  const tasks = (await src.storage.metrics.taskTotals()).map((t) => ({ labels: renderLabels({ operation: t.operation, service: t.service }), v: t.values }));
  const perTask = (name: string, help: string, column: string) => {
    out.family(name, 'counter', help);
    for (const t of tasks) out.sample(name, t.labels, t.v[T[column]!]!);
  };
  out.family('breakerbox_tasks_total', 'counter', 'Tasks (one user-facing operation, all its attempts) per operation, service and outcome (completed, failed).');
  for (const t of tasks) {
    out.sample('breakerbox_tasks_total', withLabel(t.labels, 'outcome', 'completed'), t.v[T.completed!]!);
    out.sample('breakerbox_tasks_total', withLabel(t.labels, 'outcome', 'failed'), t.v[T.failed!]!);
  }
  perTask('breakerbox_degraded_tasks_total', 'Tasks served by the last failover level (a degraded answer), per operation and service.', 'degraded');
  perTask('breakerbox_task_attempts_total', 'Attempts made for tasks (every provider call of every level), per operation and service.', 'attempts');
  perTask('breakerbox_task_cost_usd_total', 'Spend of all attempts in USD (failed ones too), per operation and service.', 'cost_usd');
  out.family('breakerbox_tasks_served_total', 'counter', 'Tasks served per failover level (0 = primary), per operation and service; levels that occurred.');
  for (const t of tasks) {
    for (let level = 0; level <= 4; level++) {
      const v = t.v[T[`level${level}`]!]!;
      if (v > 0) out.sample('breakerbox_tasks_served_total', withLabel(t.labels, 'level', String(level)), v);
    }
  }
  perTask('breakerbox_fallback_invocations_total', 'Fallbacks invoked, per operation and service.', 'fallback_invoked');
  perTask('breakerbox_fallback_failures_total', 'Fallbacks that failed too, per operation and service.', 'fallback_failed');

  // service_instance_id (OTel service.instance.id), not instance: Prometheus owns that label.
  out.family('breakerbox_source_dropped_events_total', 'counter', 'Events a sender dropped from its buffer while the collector was unreachable, as it reported them, per service and service_instance_id.');
  for (const d of await src.storage.metrics.droppedEvents()) {
    out.sample('breakerbox_source_dropped_events_total', renderLabels({ service: d.service, service_instance_id: d.instance }), d.dropped);
  }

  // Bounded by the storage read (MAX_PASSTHROUGH_ROWS, the largest): a host and path family per series, never a model.
  out.family('breakerbox_passthrough_requests_total', 'counter', 'Requests an SDK forwarded unprotected (no breaker, retry, fallback or key), per service, host and path family, as the SDKs reported them (docs/protocol.md, "Passthrough").');
  for (const p of await src.storage.metrics.passthroughTotals()) {
    out.sample('breakerbox_passthrough_requests_total', renderLabels({ service: p.service, host: p.host, path_family: p.pathFamily }), p.requests);
  }

  out.family('breakerbox_alerts', 'gauge', 'Unresolved alerts by state (pending, firing) and severity.');
  const alerts = await src.storage.alerts.countsByState();
  for (const state of ['pending', 'firing']) {
    for (const severity of ['info', 'warning', 'critical']) {
      const n = alerts.find((a) => a.state === state && a.severity === severity)?.n ?? 0;
      out.sample('breakerbox_alerts', renderLabels({ state, severity }), n);
    }
  }

  out.family('breakerbox_model_retirement_seconds', 'gauge', 'Seconds until a model in use retires (negative once retired; days: divide by 86400), per provider and model, from the retirement calendar (docs/lifecycle.md); models without a date are not listed.');
  for (const r of await src.retirements()) out.sample('breakerbox_model_retirement_seconds', renderLabels({ provider: r.provider, model: r.model }), r.seconds);

  out.family('breakerbox_served_model_changes_total', 'counter', 'Changes of the served model version behind a requested model (model_served or system_fingerprint, from probes and call samples), per provider and model, counted by this collector since it started, in event-time order once settled (docs/metrics.md).');
  for (const c of (await src.servedChanges?.()) ?? []) out.sample('breakerbox_served_model_changes_total', renderLabels({ provider: c.provider, model: c.model }), c.changes);

  const exporter = src.health.exporter;
  exporter.series = series;
  exporter.droppedSeries += droppedSeries;
  exporter.droppedKeys = droppedKeys;
  out.family('breakerbox_metrics_state_age_seconds', 'gauge', 'Age of the state gauges on this page (breaker instances, open ratio, verdict): seconds from the end of the window they were judged over to this scrape; 0 when judged for it. Absent without state gauges.');
  if (stateAge !== null) out.sample('breakerbox_metrics_state_age_seconds', '', stateAge);
  out.family('breakerbox_metrics_series', 'gauge', 'Per-key series on this page (under metrics.max_series).');
  out.sample('breakerbox_metrics_series', '', series);
  out.family('breakerbox_metrics_dropped_keys', 'gauge', 'Keys left off this page because their series did not fit under metrics.max_series.');
  out.sample('breakerbox_metrics_dropped_keys', '', droppedKeys);
  out.family('breakerbox_metrics_series_dropped_total', 'counter', 'Series left off /metrics pages under metrics.max_series, summed over scrapes since the process started.');
  out.sample('breakerbox_metrics_series_dropped_total', '', exporter.droppedSeries);
  yield out.take();
}

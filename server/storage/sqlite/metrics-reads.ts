import { statSync } from 'node:fs';
import type { Db } from './database.ts';
import type { MetricsPart, TotalsRow, TransitionTotalsRow, KeyLabelsRow } from '../parts/metrics.ts';
import type { SyncPart } from './sync-part.ts';
import { PASSTHROUGH_TOTALS, passthroughTotalsOf } from '../passthrough-rows.ts';
import { KEY_COLUMNS as KEY_COUNTERS, PROBE_COLUMNS as PROBE_COUNTERS, TASK_COLUMNS as TASK_COUNTERS } from '@breakerbox/protocol';

/** The `/metrics` part, answered synchronously. */
export type MetricsReads = SyncPart<MetricsPart>;

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Prepares the `/metrics` reads over the collector's connection. Every read is one short, synchronous query. */
export function createMetricsReads(db: Db, path: string): MetricsReads {
  const keys = db.prepare('SELECT id, provider, endpoint, model, region FROM keys WHERE id > ? ORDER BY id LIMIT ?');
  const keyTotals = db
    .prepare(`SELECT t.key_id, s.name, ${KEY_COUNTERS.map((c) => `t.${c}`).join(', ')}
      FROM key_totals t JOIN services s ON s.id = t.service_id WHERE t.key_id > ? AND t.key_id <= ? ORDER BY t.key_id, t.service_id`)
    .raw();
  const probeTotals = db
    .prepare(`SELECT key_id, location, ${PROBE_COUNTERS.join(', ')} FROM probe_totals WHERE key_id > ? AND key_id <= ? ORDER BY key_id, location`)
    .raw();
  const transitions = db.prepare(`SELECT key_id AS keyId, to_state AS toState, reason, SUM(transitions) AS transitions
    FROM key_transition_totals WHERE key_id > ? AND key_id <= ? GROUP BY key_id, to_state, reason ORDER BY key_id, to_state, reason`);
  const tasks = db
    .prepare(`SELECT t.operation, s.name, ${TASK_COUNTERS.map((c) => `t.${c}`).join(', ')}
      FROM task_totals t JOIN services s ON s.id = t.service_id ORDER BY t.operation, s.name`)
    .raw();
  const passthroughTotals = db.prepare(PASSTHROUGH_TOTALS);
  const dropped = db.prepare(`SELECT sv.name AS service, so.instance, so.dropped_events AS dropped
    FROM sources so JOIN services sv ON sv.id = so.service_id WHERE so.dropped_events > 0 ORDER BY sv.name, so.instance`);
  const totals = (rows: unknown[][]): TotalsRow[] =>
    rows.map((r) => ({ keyId: r[0] as number, part: r[1] as string, values: r.slice(2) as number[] }));

  return {
    keys: (afterId, limit) => keys.all(afterId, limit) as KeyLabelsRow[],
    keyTotals: (afterId, toId) => totals(keyTotals.all(afterId, toId) as unknown[][]),
    probeTotals: (afterId, toId) => totals(probeTotals.all(afterId, toId) as unknown[][]),
    transitionTotals: (afterId, toId) => transitions.all(afterId, toId) as TransitionTotalsRow[],
    taskTotals: () =>
      (tasks.all() as unknown[][]).map((r) => ({ operation: r[0] as string, service: r[1] as string, values: r.slice(2) as number[] })),
    passthroughTotals: () => passthroughTotalsOf(passthroughTotals.all() as Parameters<typeof passthroughTotalsOf>[0]),
    droppedEvents: () => dropped.all() as { service: string; instance: string; dropped: number }[],
    sizes: () => (path === ':memory:' ? { database: 0, wal: 0 } : { database: sizeOf(path), wal: sizeOf(`${path}-wal`) }),
  };
}

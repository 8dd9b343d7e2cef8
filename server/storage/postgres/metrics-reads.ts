import { KEY_COLUMNS, PROBE_COLUMNS, TASK_COLUMNS } from '@breakerbox/protocol';
import type { KeyLabelsRow, MetricsPart, TotalsRow, TransitionTotalsRow } from '../parts/metrics.ts';
import type { PgPool } from './pool.ts';
import { PASSTHROUGH_TOTALS, passthroughTotalsOf } from '../passthrough-rows.ts';

const SQL = {
  keys: 'SELECT id, provider, endpoint, model, region FROM keys WHERE id > $1 ORDER BY id LIMIT $2',
  keyTotals: `SELECT t.key_id, s.name, ${KEY_COLUMNS.map((c) => `t.${c}`).join(', ')}
    FROM key_totals t JOIN services s ON s.id = t.service_id WHERE t.key_id > $1 AND t.key_id <= $2 ORDER BY t.key_id, t.service_id`,
  probeTotals: `SELECT key_id, location, ${PROBE_COLUMNS.join(', ')} FROM probe_totals WHERE key_id > $1 AND key_id <= $2 ORDER BY key_id, location COLLATE "C"`,
  transitions: `SELECT key_id AS "keyId", to_state AS "toState", reason, SUM(transitions) AS transitions
    FROM key_transition_totals WHERE key_id > $1 AND key_id <= $2 GROUP BY key_id, to_state, reason ORDER BY key_id, to_state COLLATE "C", reason COLLATE "C"`,
  tasks: `SELECT t.operation, s.name, ${TASK_COLUMNS.map((c) => `t.${c}`).join(', ')}
    FROM task_totals t JOIN services s ON s.id = t.service_id ORDER BY t.operation COLLATE "C", s.name COLLATE "C"`,
  dropped: `SELECT sv.name AS service, so.instance, so.dropped_events AS dropped
    FROM sources so JOIN services sv ON sv.id = so.service_id WHERE so.dropped_events > 0 ORDER BY sv.name COLLATE "C", so.instance COLLATE "C"`,
  size: 'SELECT pg_database_size(current_database()) AS n',
};

const totals = (rows: unknown[][]): TotalsRow[] => rows.map((r) => ({ keyId: r[0] as number, part: r[1] as string, values: r.slice(2) as number[] }));

/** What `/metrics` reads on PostgreSQL: the same all-time totals every collector exports alike. */
export function createPostgresMetricsReads(pool: PgPool): MetricsPart {
  const arrays = async (name: string, text: string, values: unknown[]) =>
    (await pool.query<unknown[]>({ name, text, values, rowMode: 'array' })).rows as unknown as unknown[][];
  return {
    async keys(afterId, limit) {
      return (await pool.query<KeyLabelsRow>({ name: 'metrics_keys', text: SQL.keys, values: [afterId, limit] })).rows;
    },
    async keyTotals(afterId, toId) {
      return totals(await arrays('metrics_key_totals', SQL.keyTotals, [afterId, toId]));
    },
    async probeTotals(afterId, toId) {
      return totals(await arrays('metrics_probe_totals', SQL.probeTotals, [afterId, toId]));
    },
    async transitionTotals(afterId, toId) {
      return (await pool.query<TransitionTotalsRow>({ name: 'metrics_transitions', text: SQL.transitions, values: [afterId, toId] })).rows;
    },
    async taskTotals() {
      return (await arrays('metrics_tasks', SQL.tasks, [])).map((r) => ({ operation: r[0] as string, service: r[1] as string, values: r.slice(2) as number[] }));
    },
    async passthroughTotals() {
      return passthroughTotalsOf((await pool.query({ name: 'metrics_passthrough', text: PASSTHROUGH_TOTALS })).rows);
    },
    async droppedEvents() {
      return (await pool.query<{ service: string; instance: string; dropped: number }>({ name: 'metrics_dropped', text: SQL.dropped })).rows;
    },
    async sizes() {
      return { database: (await pool.query<{ n: number }>({ name: 'metrics_size', text: SQL.size })).rows[0]!.n, wal: 0 };
    },
  };
}

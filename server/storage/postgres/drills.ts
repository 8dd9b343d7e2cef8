import type { DrillsPart } from '../parts/drills.ts';
import type { PgPool } from './pool.ts';
import { DRILL_RUN_COLUMNS, drillBatchRecord, drillRunRecord, drillRunValues, type DrillBatchRow, type DrillRunRow } from '../drill-rows.ts';

/** Drill runs and their telemetry on PostgreSQL: written by any collector, judged by the leader, fed by all. */
export function createPostgresDrills(pool: PgPool): DrillsPart {
  const runs = async (name: string, text: string, values: unknown[]) => (await pool.query<DrillRunRow>({ name, text, values })).rows.map(drillRunRecord);
  const one = async (name: string, text: string, values: unknown[]) => (await runs(name, text, values))[0] ?? null;
  return {
    async insertRun(r) {
      await pool.query({
        name: 'drill_insert',
        text: `INSERT INTO drill_runs (${DRILL_RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        values: drillRunValues(r),
      });
    },
    async stopRun(id, now, by) {
      const r = await pool.query({
        name: 'drill_stop',
        text: `UPDATE drill_runs SET ends_at = LEAST(ends_at, $1), stopped_at = $1, stopped_by = $2, updated_at = $1
          WHERE id = $3 AND stopped_at IS NULL AND ends_at > $1`,
        values: [now, by, id],
      });
      return (r.rowCount ?? 0) > 0;
    },
    getRun: (id) => one('drill_get', 'SELECT * FROM drill_runs WHERE id = $1', [id]),
    listRuns: (service, limit) =>
      service === null
        ? runs('drill_list_all', 'SELECT * FROM drill_runs ORDER BY issued_at DESC, id DESC LIMIT $1', [limit])
        : runs('drill_list_of', 'SELECT * FROM drill_runs WHERE service = $1 ORDER BY issued_at DESC, id DESC LIMIT $2', [service, limit]),
    changedSince: (since) => runs('drill_changed', 'SELECT * FROM drill_runs WHERE updated_at >= $1 ORDER BY updated_at, id', [since]),
    unjudged: (endedBy) => runs('drill_unjudged', 'SELECT * FROM drill_runs WHERE report IS NULL AND ends_at <= $1 ORDER BY ends_at, id', [endedBy]),
    async saveReport(id, report, now) {
      const r = await pool.query({ name: 'drill_save', text: 'UPDATE drill_runs SET report = $1, judged_at = $2 WHERE id = $3 AND report IS NULL', values: [JSON.stringify(report), now, id] });
      return (r.rowCount ?? 0) > 0;
    },
    previousJudged: (service, before) =>
      one('drill_previous', 'SELECT * FROM drill_runs WHERE service = $1 AND issued_at < $2 AND report IS NOT NULL ORDER BY issued_at DESC, id DESC LIMIT 1', [service, before]),
    async insertBatch(drillId, batchId, b) {
      const r = await pool.query({
        name: 'drill_batch_insert',
        text: `INSERT INTO drill_batches (drill_id, batch_id, service, instance, received_at, events) VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (drill_id, batch_id) DO NOTHING`,
        values: [drillId, batchId, b.service, b.instance, b.receivedAt, JSON.stringify(b.events)],
      });
      return (r.rowCount ?? 0) > 0;
    },
    batches: async (drillId) =>
      (await pool.query<DrillBatchRow>({ name: 'drill_batches', text: 'SELECT service, instance, received_at, events FROM drill_batches WHERE drill_id = $1 ORDER BY received_at, batch_id', values: [drillId] })).rows.map(drillBatchRecord),
  };
}

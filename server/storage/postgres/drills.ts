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
    running: (now) => runs('drill_running', 'SELECT * FROM drill_runs WHERE report IS NULL AND ends_at > $1 ORDER BY issued_at, id', [now]),
    async recordDelivery(drillId, collector, feeds, now) {
      await pool.query({
        name: 'drill_deliver',
        text: `INSERT INTO drill_deliveries (drill_id, collector, feeds, delivered_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (drill_id, collector) DO UPDATE SET feeds = drill_deliveries.feeds + excluded.feeds, delivered_at = excluded.delivered_at`,
        values: [drillId, collector, feeds, now],
      });
    },
    async delivered(drillId) {
      const r = await pool.query<{ n: string }>({ name: 'drill_delivered', text: 'SELECT COALESCE(SUM(feeds), 0) AS n FROM drill_deliveries WHERE drill_id = $1', values: [drillId] });
      return Number(r.rows[0]?.n ?? 0);
    },
    async writeFeeds(collector, feeds, now) {
      const live = [...feeds].filter(([, n]) => n > 0);
      // An upsert, then the services no longer held go: a reader between the two sees the old counts, never none.
      await pool.query({
        name: 'drill_feeds_upsert',
        text: `INSERT INTO feed_services (collector, service, feeds, seen_at) SELECT $1, s, n, $4 FROM UNNEST($2::text[], $3::int[]) AS t (s, n)
          ON CONFLICT (collector, service) DO UPDATE SET feeds = excluded.feeds, seen_at = excluded.seen_at`,
        values: [collector, live.map(([s]) => s), live.map(([, n]) => n), now],
      });
      await pool.query({ name: 'drill_feeds_gone', text: 'DELETE FROM feed_services WHERE collector = $1 AND NOT (service = ANY($2::text[]))', values: [collector, live.map(([s]) => s)] });
    },
    async feedsOf(since, except) {
      const r = await pool.query<{ service: string; n: string }>({
        name: 'drill_feeds_of',
        text: 'SELECT service, SUM(feeds) AS n FROM feed_services WHERE seen_at >= $1 AND collector <> $2 GROUP BY service',
        values: [since, except],
      });
      return new Map(r.rows.map((row) => [row.service, Number(row.n)]));
    },
  };
}

import type { Db } from './database.ts';
import type { DrillsPart } from '../parts/drills.ts';
import type { SyncPart } from './sync-part.ts';
import { DRILL_RUN_COLUMNS, drillBatchRecord, drillRunRecord, drillRunValues, type DrillBatchRow, type DrillRunRow } from '../drill-rows.ts';

/** Creates the drills part over the SQLite connection. */
export function createDrillStore(db: Db): SyncPart<DrillsPart> {
  const insert = db.prepare(`INSERT INTO drill_runs (${DRILL_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const stop = db.prepare(`UPDATE drill_runs SET ends_at = MIN(ends_at, ?), stopped_at = ?, stopped_by = ?, updated_at = ?
    WHERE id = ? AND stopped_at IS NULL AND ends_at > ?`);
  const get = db.prepare('SELECT * FROM drill_runs WHERE id = ?');
  const listAll = db.prepare('SELECT * FROM drill_runs ORDER BY issued_at DESC, id DESC LIMIT ?');
  const listOf = db.prepare('SELECT * FROM drill_runs WHERE service = ? ORDER BY issued_at DESC, id DESC LIMIT ?');
  const changed = db.prepare('SELECT * FROM drill_runs WHERE updated_at >= ? ORDER BY updated_at, id');
  const unjudged = db.prepare('SELECT * FROM drill_runs WHERE report IS NULL AND ends_at <= ? ORDER BY ends_at, id');
  const save = db.prepare('UPDATE drill_runs SET report = ?, judged_at = ? WHERE id = ? AND report IS NULL');
  const previous = db.prepare('SELECT * FROM drill_runs WHERE service = ? AND issued_at < ? AND report IS NOT NULL ORDER BY issued_at DESC, id DESC LIMIT 1');
  const insertBatch = db.prepare(`INSERT INTO drill_batches (drill_id, batch_id, service, instance, received_at, events) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (drill_id, batch_id) DO NOTHING`);
  const batches = db.prepare('SELECT service, instance, received_at, events FROM drill_batches WHERE drill_id = ? ORDER BY received_at, batch_id');
  const running = db.prepare('SELECT * FROM drill_runs WHERE report IS NULL AND ends_at > ? ORDER BY issued_at, id');
  const deliver = db.prepare(`INSERT INTO drill_deliveries (drill_id, collector, feeds, delivered_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (drill_id, collector) DO UPDATE SET feeds = feeds + excluded.feeds, delivered_at = excluded.delivered_at`);
  const delivered = db.prepare('SELECT COALESCE(SUM(feeds), 0) AS n FROM drill_deliveries WHERE drill_id = ?');
  const clearFeeds = db.prepare('DELETE FROM feed_services WHERE collector = ?');
  const insertFeeds = db.prepare('INSERT INTO feed_services (collector, service, feeds, seen_at) VALUES (?, ?, ?, ?)');
  const feedsOf = db.prepare('SELECT service, SUM(feeds) AS n FROM feed_services WHERE seen_at >= ? AND collector <> ? GROUP BY service');
  const writeFeeds = db.transaction((collector: string, feeds: ReadonlyMap<string, number>, now: number) => {
    clearFeeds.run(collector);
    for (const [service, n] of feeds) if (n > 0) insertFeeds.run(collector, service, n, now);
  });
  const runs = (rows: unknown[]) => (rows as DrillRunRow[]).map(drillRunRecord);
  return {
    insertRun(r) {
      insert.run(...drillRunValues(r));
    },
    stopRun: (id, now, by) => stop.run(now, now, by, now, id, now).changes > 0,
    getRun(id) {
      const row = get.get(id) as DrillRunRow | undefined;
      return row ? drillRunRecord(row) : null;
    },
    listRuns: (service, limit) => runs(service === null ? listAll.all(limit) : listOf.all(service, limit)),
    changedSince: (since) => runs(changed.all(since)),
    unjudged: (endedBy) => runs(unjudged.all(endedBy)),
    saveReport: (id, report, now) => save.run(JSON.stringify(report), now, id).changes > 0,
    previousJudged(service, before) {
      const row = previous.get(service, before) as DrillRunRow | undefined;
      return row ? drillRunRecord(row) : null;
    },
    insertBatch: (drillId, batchId, b) => insertBatch.run(drillId, batchId, b.service, b.instance, b.receivedAt, JSON.stringify(b.events)).changes > 0,
    batches: (drillId) => (batches.all(drillId) as DrillBatchRow[]).map(drillBatchRecord),
    running: (now) => runs(running.all(now)),
    recordDelivery(drillId, collector, feeds, now) {
      deliver.run(drillId, collector, feeds, now);
    },
    delivered: (drillId) => Number((delivered.get(drillId) as { n: number }).n),
    writeFeeds(collector, feeds, now) {
      writeFeeds(collector, feeds, now);
    },
    feedsOf: (since, except) => new Map((feedsOf.all(since, except) as { service: string; n: number }[]).map((r) => [r.service, Number(r.n)])),
  };
}

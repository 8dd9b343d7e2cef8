import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import { lastSealedEnd, sealedHours, spanSegments, type Segment } from '../hour-segments.ts';
import { sumList } from '../sum-list.ts';
import { appendGlobal } from './change-log.ts';
import { inTransaction, type PgPool } from './pool.ts';

const HOUR = 3_600_000;
const floorHour = (ms: number) => ms - (ms % HOUR);
const keyCols = KEY_COLUMNS.join(', ');
const probeCols = PROBE_COLUMNS.join(', ');

const SQL = {
  builds: 'SELECT hour, version FROM rollup_hour_builds WHERE hour >= $1 AND hour < $2',
  changes: 'SELECT hour, version FROM rollup_hour_changes WHERE hour >= $1 AND hour < $2',
  delKeys: 'DELETE FROM key_hours WHERE hour = $1',
  insKeys: `INSERT INTO key_hours (key_id, service_id, hour, ${keyCols})
    SELECT key_id, service_id, $1, ${sumList(KEY_COLUMNS)} FROM key_minutes WHERE minute >= $1 AND minute < $2 GROUP BY key_id, service_id`,
  delSources: 'DELETE FROM key_hour_sources WHERE hour = $1',
  insSources: `INSERT INTO key_hour_sources (key_id, hour, source_id, minutes)
    SELECT key_id, $1, source_id, COUNT(*) FROM key_minute_sources WHERE minute >= $1 AND minute < $2 GROUP BY key_id, source_id`,
  delProbes: 'DELETE FROM probe_hours WHERE hour = $1',
  insProbes: `INSERT INTO probe_hours (key_id, location, hour, ${probeCols})
    SELECT key_id, location, $1, ${sumList(PROBE_COLUMNS)} FROM probe_minutes WHERE minute >= $1 AND minute < $2 GROUP BY key_id, location`,
  record: `INSERT INTO rollup_hour_builds (hour, version, built_at)
    VALUES ($1, coalesce((SELECT version FROM rollup_hour_changes WHERE hour = $1), 0), $2)
    ON CONFLICT (hour) DO UPDATE SET version = EXCLUDED.version, built_at = EXCLUDED.built_at`,
};

/** The hourly aggregation on PostgreSQL, planned with the shared `spanSegments`. */
export interface PostgresHourRollups {
  plan(first: number, end: number, now: number): Promise<Segment[]>;
  build(hour: number, now: number): Promise<void>;
  warm(spanMs: number, now: number): Promise<{ built: number }>;
}

/**
 * Hourly aggregates on PostgreSQL. Only the leader builds them (hourly aggregation runs
 * once, not once per collector); every collector reads them. A build holds a transaction
 * advisory lock on its hour, so a build overlapping a leadership change cannot interleave.
 */
export function createPostgresHourRollups(pool: PgPool): PostgresHourRollups {
  const staleHours = async (from: number, to: number): Promise<Set<number>> => {
    const [built, changed] = await Promise.all([
      pool.query<{ hour: number; version: number }>({ name: 'hours_builds', text: SQL.builds, values: [from, to] }),
      pool.query<{ hour: number; version: number }>({ name: 'hours_changes', text: SQL.changes, values: [from, to] }),
    ]);
    const b = new Map(built.rows.map((r) => [r.hour, r.version]));
    const c = new Map(changed.rows.map((r) => [r.hour, r.version]));
    const stale = new Set<number>();
    for (let h = from; h < to; h += HOUR) {
      const version = b.get(h);
      if (version === undefined || version !== (c.get(h) ?? 0)) stale.add(h);
    }
    return stale;
  };
  const build = (hour: number, now: number) =>
    inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [String(hour)]);
      await c.query({ name: 'hours_del_keys', text: SQL.delKeys, values: [hour] });
      await c.query({ name: 'hours_ins_keys', text: SQL.insKeys, values: [hour, hour + HOUR] });
      await c.query({ name: 'hours_del_sources', text: SQL.delSources, values: [hour] });
      await c.query({ name: 'hours_ins_sources', text: SQL.insSources, values: [hour, hour + HOUR] });
      await c.query({ name: 'hours_del_probes', text: SQL.delProbes, values: [hour] });
      await c.query({ name: 'hours_ins_probes', text: SQL.insProbes, values: [hour, hour + HOUR] });
      await c.query({ name: 'hours_record', text: SQL.record, values: [hour, now] });
      await appendGlobal(c, 'hour');
    });
  return {
    async plan(first, end, now) {
      const { hoursFrom, hoursTo } = sealedHours(first, end, now);
      return spanSegments(first, end, now, hoursTo - hoursFrom < HOUR ? new Set() : await staleHours(hoursFrom, hoursTo));
    },
    build,
    async warm(spanMs, now) {
      const stale = [...(await staleHours(floorHour(now - spanMs), lastSealedEnd(now)))].sort((a, b) => b - a);
      for (const hour of stale) await build(hour, now);
      return { built: stale.length };
    },
  };
}

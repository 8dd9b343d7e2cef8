import { systemClock, type ServerClock } from '../../clock.ts';
import type { Db } from './database.ts';
import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import { sumList } from '../sum-list.ts';
import { HOUR, floorHour, lastSealedEnd, sealedHours, spanSegments, type Segment } from '../hour-segments.ts';

/** Hourly aggregates of the per-minute rollups, built off the request path. */
export interface HourRollups {
  /**
   * Splits the minutes `[first, end)` (`first` on a minute) into segments: hours that are
   * built and current come from the hourly tables, everything else from the minutes.
   */
  plan(first: number, end: number, now?: number): Segment[];
  /** Builds (or rebuilds) one hour now, in one transaction. */
  build(hour: number, now?: number): void;
  /** Builds stale or missing sealed hours back to `spanMs` ago, yielding between hours. */
  warm(spanMs: number, now?: number): Promise<{ built: number }>;
}

/** Creates the hourly aggregation over the collector's database handle. */
export function createHourRollups(db: Db, clock: ServerClock = systemClock): HourRollups {
  const keyCols = KEY_COLUMNS.join(', ');
  const probeCols = PROBE_COLUMNS.join(', ');
  const s = {
    builds: db.prepare('SELECT hour, version FROM rollup_hour_builds WHERE hour >= ? AND hour < ?'),
    changes: db.prepare('SELECT hour, version FROM rollup_hour_changes WHERE hour >= ? AND hour < ?'),
    delKeys: db.prepare('DELETE FROM key_hours WHERE hour = ?'),
    insKeys: db.prepare(`INSERT INTO key_hours (key_id, service_id, hour, ${keyCols})
      SELECT key_id, service_id, ?, ${sumList(KEY_COLUMNS)} FROM key_minutes
      WHERE minute >= ? AND minute < ? GROUP BY key_id, service_id`),
    delSources: db.prepare('DELETE FROM key_hour_sources WHERE hour = ?'),
    insSources: db.prepare(`INSERT INTO key_hour_sources (key_id, hour, source_id, minutes)
      SELECT key_id, ?, source_id, COUNT(*) FROM key_minute_sources
      WHERE minute >= ? AND minute < ? GROUP BY key_id, source_id`),
    delProbes: db.prepare('DELETE FROM probe_hours WHERE hour = ?'),
    insProbes: db.prepare(`INSERT INTO probe_hours (key_id, location, hour, ${probeCols})
      SELECT key_id, location, ?, ${sumList(PROBE_COLUMNS)} FROM probe_minutes
      WHERE minute >= ? AND minute < ? GROUP BY key_id, location`),
    record: db.prepare(`INSERT INTO rollup_hour_builds (hour, version, built_at)
      VALUES (?, coalesce((SELECT version FROM rollup_hour_changes WHERE hour = ?), 0), ?)
      ON CONFLICT (hour) DO UPDATE SET version = excluded.version, built_at = excluded.built_at`),
  };

  const buildTx = db.transaction((hour: number, now: number) => {
    s.delKeys.run(hour);
    s.insKeys.run(hour, hour, hour + HOUR);
    s.delSources.run(hour);
    s.insSources.run(hour, hour, hour + HOUR);
    s.delProbes.run(hour);
    s.insProbes.run(hour, hour, hour + HOUR);
    s.record.run(hour, hour, now);
  });

  /** Sealed hours in `[from, to)` whose aggregate is missing or older than the data. */
  const staleHours = (from: number, to: number): Set<number> => {
    const built = new Map((s.builds.raw().all(from, to) as [number, number][]).map(([h, v]) => [h, v]));
    const changed = new Map((s.changes.raw().all(from, to) as [number, number][]).map(([h, v]) => [h, v]));
    const stale = new Set<number>();
    for (let h = from; h < to; h += HOUR) {
      const version = built.get(h);
      if (version === undefined || version !== (changed.get(h) ?? 0)) stale.add(h);
    }
    return stale;
  };

  return {
    plan(first, end, now = clock.now()) {
      const { hoursFrom, hoursTo } = sealedHours(first, end, now);
      return spanSegments(first, end, now, hoursTo - hoursFrom < HOUR ? new Set() : staleHours(hoursFrom, hoursTo));
    },
    build(hour, now = clock.now()) {
      buildTx.immediate(hour, now);
    },
    async warm(spanMs, now = clock.now()) {
      const to = lastSealedEnd(now);
      const stale = [...staleHours(floorHour(now - spanMs), to)].sort((a, b) => b - a);
      for (const hour of stale) {
        buildTx.immediate(hour, clock.now());
        // One hour per turn of the event loop, so ingest and reads interleave with a backfill.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { built: stale.length };
    },
  };
}

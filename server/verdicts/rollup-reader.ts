import type { Statement } from 'better-sqlite3';
import type { Db } from '../storage/database.ts';
import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import { P, newKeySums, newProbeSums, sumList, type KeySums, type ProbeSums } from './counters.ts';
import type { HourRollups, Segment } from './hour-rollups.ts';

/** Per key, per service: summed key counters. */
export type KeyServiceSums = Map<number, Map<number, KeySums>>;
/** Per key, per location: summed probe counters. */
export type KeyLocationSums = Map<number, Map<string, ProbeSums>>;
/** Per key, per source: minutes reported. */
export type KeySourceMinutes = Map<number, Map<number, number>>;

/** One minute of one key × location's probes, newest first in `recentProbes`. */
export interface ProbeMinute {
  minute: number;
  probes: number;
  failed: number;
  misconfigured: number;
}

/** Reads the rollups (hourly where built, per-minute elsewhere) summed over a minute span. */
export interface RollupReader {
  keyServiceSums(first: number, end: number, keyId?: number): KeyServiceSums;
  probeSums(first: number, end: number, keyId?: number): KeyLocationSums;
  keySources(first: number, end: number, keyId?: number): KeySourceMinutes;
  /** Probe minutes in `[first, end)`, newest first, per key and location. */
  recentProbes(first: number, end: number, keyId?: number): Map<number, Map<string, ProbeMinute[]>>;
  /**
   * Both of the above from one read of the per-minute probes, for spans short enough to read
   * minute by minute: the sums over `[first, end)` and the minutes newest first.
   */
  probesBoth(first: number, end: number, keyId?: number): { sums: KeyLocationSums; recent: Map<number, Map<string, ProbeMinute[]>> };
  /** Per-minute sums of one key per service: minute → service id → sums. */
  keyMinutes(keyId: number, first: number, end: number): Map<number, Map<number, KeySums>>;
  /** Instances reporting one key per minute. */
  sourcesPerMinute(keyId: number, first: number, end: number): Map<number, number>;
  /** Per-minute probe sums of one key, per location, keyed by minute. */
  probeMinutes(keyId: number, first: number, end: number): Map<string, Map<number, ProbeSums>>;
  /** Fallback invocations/failures per service over `[first, end)`. */
  fallbackByService(first: number, end: number): Map<number, { invoked: number; failed: number }>;
  /**
   * Fallback invocations/failures per service and primary key, for services whose tasks carry
   * their primary key (migration 010). A service missing here sends tasks without keys.
   */
  fallbackByKey(first: number, end: number): Map<number, Map<number, { invoked: number; failed: number }>>;
  /** Per key, whether its latest `config` event lists fallbacks (keys without a config event are absent). */
  hasFallbacks(): Map<number, boolean>;
  /** Failed warm probes per location over `[from, to)` (raw probes), and how many were network/timeout. */
  probeFailureClasses(from: number, to: number): Map<string, { failed: number; network: number }>;
}

type Row = (number | string)[];

/** Creates the reader; statements are prepared once per (table, key filter). */
export function createRollupReader(db: Db, hours: HourRollups): RollupReader {
  const cache = new Map<string, Statement<unknown[]>>();
  const stmt = (sql: string) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare<unknown[]>(sql).raw();
      cache.set(sql, st);
    }
    return st;
  };
  const keyFilter = (keyId: number | undefined) => (keyId === undefined ? 'TRUE' : 'key_id = ?');
  const args = (keyId: number | undefined, from: number, to: number) => (keyId === undefined ? [from, to] : [keyId, from, to]);

  /** The grouped sum of one segment: from `<table>_hours` or `<table>_minutes`, whichever the plan chose. */
  const segmentSql = (table: 'key' | 'probe', group: string, sums: string, keyId: number | undefined) => (seg: { table: string }) => {
    const [rows, time] = seg.table === 'hours' ? [`${table}_hours`, 'hour'] : [`${table}_minutes`, 'minute'];
    return `SELECT key_id, ${group}, ${sums} FROM ${rows} WHERE ${keyFilter(keyId)} AND ${time} >= ? AND ${time} < ? GROUP BY key_id, ${group}`;
  };

  /** Runs a grouped sum over each segment and folds rows into nested maps. */
  const grouped = <K2>(
    segments: Segment[],
    sql: (seg: Segment) => string,
    keyId: number | undefined,
    width: number,
    make: () => Float64Array,
  ): Map<number, Map<K2, Float64Array>> => {
    const out = new Map<number, Map<K2, Float64Array>>();
    for (const seg of segments) {
      for (const row of stmt(sql(seg)).all(...args(keyId, seg.from, seg.to)) as Row[]) {
        const k = row[0] as number;
        let inner = out.get(k);
        if (!inner) out.set(k, (inner = new Map()));
        let sums = inner.get(row[1] as K2);
        if (!sums) inner.set(row[1] as K2, (sums = make()));
        for (let i = 0; i < width; i++) sums[i]! += (row[2 + i] as number) ?? 0;
      }
    }
    return out;
  };

  return {
    keyServiceSums(first, end, keyId) {
      return grouped<number>(
        hours.plan(first, end),
        segmentSql('key', 'service_id', sumList(KEY_COLUMNS), keyId),
        keyId,
        KEY_COLUMNS.length,
        newKeySums,
      );
    },
    probeSums(first, end, keyId) {
      return grouped<string>(
        hours.plan(first, end),
        segmentSql('probe', 'location', sumList(PROBE_COLUMNS), keyId),
        keyId,
        PROBE_COLUMNS.length,
        newProbeSums,
      );
    },
    keySources(first, end, keyId) {
      const out: KeySourceMinutes = new Map();
      for (const seg of hours.plan(first, end)) {
        const sql =
          seg.table === 'hours'
            ? `SELECT key_id, source_id, SUM(minutes) FROM key_hour_sources WHERE ${keyFilter(keyId)} AND hour >= ? AND hour < ? GROUP BY key_id, source_id`
            : `SELECT key_id, source_id, COUNT(*) FROM key_minute_sources WHERE ${keyFilter(keyId)} AND minute >= ? AND minute < ? GROUP BY key_id, source_id`;
        for (const [k, source, minutes] of stmt(sql).all(...args(keyId, seg.from, seg.to)) as number[][]) {
          let inner = out.get(k!);
          if (!inner) out.set(k!, (inner = new Map()));
          inner.set(source!, (inner.get(source!) ?? 0) + minutes!);
        }
      }
      return out;
    },
    recentProbes(first, end, keyId) {
      const sql = `SELECT key_id, location, minute, probes, slow + error, misconfigured FROM probe_minutes
        WHERE ${keyFilter(keyId)} AND minute >= ? AND minute < ? ORDER BY key_id, location, minute DESC`;
      const out = new Map<number, Map<string, ProbeMinute[]>>();
      for (const [k, location, minute, probes, failed, misconfigured] of stmt(sql).all(...args(keyId, first, end)) as Row[]) {
        let inner = out.get(k as number);
        if (!inner) out.set(k as number, (inner = new Map()));
        let list = inner.get(location as string);
        if (!list) inner.set(location as string, (list = []));
        list.push({ minute: minute as number, probes: probes as number, failed: failed as number, misconfigured: misconfigured as number });
      }
      return out;
    },
    probesBoth(first, end, keyId) {
      const sql = `SELECT key_id, location, minute, ${PROBE_COLUMNS.join(', ')} FROM probe_minutes WHERE ${keyFilter(keyId)} AND minute >= ? AND minute < ?`;
      const sums: KeyLocationSums = new Map();
      const recent = new Map<number, Map<string, ProbeMinute[]>>();
      const width = PROBE_COLUMNS.length;
      for (const row of stmt(sql).all(...args(keyId, first, end)) as Row[]) {
        const k = row[0] as number;
        const location = row[1] as string;
        let inner = sums.get(k);
        if (!inner) sums.set(k, (inner = new Map()));
        let acc = inner.get(location);
        if (!acc) inner.set(location, (acc = newProbeSums()));
        for (let i = 0; i < width; i++) acc[i]! += (row[3 + i] as number) ?? 0;
        let byLoc = recent.get(k);
        if (!byLoc) recent.set(k, (byLoc = new Map()));
        let list = byLoc.get(location);
        if (!list) byLoc.set(location, (list = []));
        list.push({ minute: row[2] as number, probes: row[3 + P.probes] as number, failed: (row[3 + P.slow] as number) + (row[3 + P.error] as number), misconfigured: row[3 + P.misconfigured] as number });
      }
      for (const byLoc of recent.values()) for (const list of byLoc.values()) list.sort((a, b) => b.minute - a.minute);
      return { sums, recent };
    },
    keyMinutes(keyId, first, end) {
      const sql = `SELECT minute, service_id, ${KEY_COLUMNS.join(', ')} FROM key_minutes WHERE key_id = ? AND minute >= ? AND minute < ?`;
      const out = new Map<number, Map<number, KeySums>>();
      for (const row of stmt(sql).all(keyId, first, end) as number[][]) {
        const sums = newKeySums();
        for (let i = 0; i < sums.length; i++) sums[i] = row[2 + i] ?? 0;
        let inner = out.get(row[0]!);
        if (!inner) out.set(row[0]!, (inner = new Map()));
        inner.set(row[1]!, sums);
      }
      return out;
    },
    sourcesPerMinute(keyId, first, end) {
      const sql = 'SELECT minute, COUNT(*) FROM key_minute_sources WHERE key_id = ? AND minute >= ? AND minute < ? GROUP BY minute';
      return new Map((stmt(sql).all(keyId, first, end) as [number, number][]).map(([m, n]) => [m, n]));
    },
    probeMinutes(keyId, first, end) {
      const sql = `SELECT location, minute, ${PROBE_COLUMNS.join(', ')} FROM probe_minutes WHERE key_id = ? AND minute >= ? AND minute < ?`;
      const out = new Map<string, Map<number, ProbeSums>>();
      for (const row of stmt(sql).all(keyId, first, end) as Row[]) {
        let inner = out.get(row[0] as string);
        if (!inner) out.set(row[0] as string, (inner = new Map()));
        const sums = newProbeSums();
        for (let i = 0; i < sums.length; i++) sums[i] = (row[2 + i] as number) ?? 0;
        inner.set(row[1] as number, sums);
      }
      return out;
    },
    fallbackByService(first, end) {
      const sql = `SELECT service_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes
        WHERE minute >= ? AND minute < ? GROUP BY service_id`;
      const out = new Map<number, { invoked: number; failed: number }>();
      for (const [service, invoked, failed] of stmt(sql).all(first, end) as number[][]) {
        out.set(service!, { invoked: invoked ?? 0, failed: failed ?? 0 });
      }
      return out;
    },
    fallbackByKey(first, end) {
      const sql = `SELECT service_id, key_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_key_minutes
        WHERE minute >= ? AND minute < ? GROUP BY service_id, key_id`;
      const out = new Map<number, Map<number, { invoked: number; failed: number }>>();
      for (const [service, key, invoked, failed] of stmt(sql).all(first, end) as number[][]) {
        let inner = out.get(service!);
        if (!inner) out.set(service!, (inner = new Map()));
        inner.set(key!, { invoked: invoked ?? 0, failed: failed ?? 0 });
      }
      return out;
    },
    hasFallbacks() {
      // SQLite returns the bare columns of the row holding MAX(ts): the latest config per key.
      const sql = `SELECT key_id, fallbacks, MAX(ts) FROM config_events GROUP BY key_id`;
      return new Map((stmt(sql).all() as [number, string][]).map(([key, fallbacks]) => [key, fallbacks !== '[]']));
    },
    probeFailureClasses(from, to) {
      const sql = `SELECT location, COUNT(*), SUM(CASE WHEN error_class IN ('network', 'timeout') THEN 1 ELSE 0 END) FROM probe_events
        WHERE ts >= ? AND ts < ? AND outcome <> 'ok' AND cold = 0 GROUP BY location`;
      return new Map((stmt(sql).all(from, to) as [string, number, number][]).map(([location, failed, network]) => [location, { failed, network }]));
    },
  };
}

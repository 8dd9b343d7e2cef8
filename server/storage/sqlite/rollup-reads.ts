import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';
import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import type { KeyLocationSums, KeySourceMinutes, ProbeMinute, RollupsPart } from '../parts/rollups.ts';
import type { SyncPart } from './sync-part.ts';
import type { HourRollups, Segment } from './hour-rollups.ts';
import { sumList } from './sum-list.ts';

/** The rollup reads of the rollups part (the hourly aggregation is added by the storage). */
export type RollupReader = Omit<SyncPart<RollupsPart>, 'buildHour' | 'warmHours'>;

const newKeySums = () => new Float64Array(KEY_COLUMNS.length);
const newProbeSums = () => new Float64Array(PROBE_COLUMNS.length);
const P = { probes: PROBE_COLUMNS.indexOf('probes'), slow: PROBE_COLUMNS.indexOf('slow'), error: PROBE_COLUMNS.indexOf('error'), misconfigured: PROBE_COLUMNS.indexOf('misconfigured') };
type KeySums = Float64Array;
type ProbeSums = Float64Array;

type Row = (number | string)[];

/** Creates the reader; each statement is prepared once, on first use (one per table and key filter). */
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
    instanceSums(keyId, from, to) {
      const sql = `SELECT source_id, SUM(calls), SUM(failed), SUM(slow), SUM(rejected), SUM(retries), MAX(last_end)
        FROM key_minute_sources WHERE key_id = ? AND minute >= ? AND minute < ? AND calls > 0 GROUP BY source_id`;
      const out = new Map<number, { calls: number; failed: number; slow: number; rejected: number; retries: number; lastEnd: number }>();
      for (const [source, calls, failed, slow, rejected, retries, lastEnd] of stmt(sql).all(keyId, from - (from % 60_000), to) as number[][]) {
        out.set(source!, { calls: calls!, failed: failed!, slow: slow!, rejected: rejected!, retries: retries!, lastEnd: lastEnd! });
      }
      return out;
    },
    fallbackMinutes(serviceIds, first, end) {
      if (serviceIds.length === 0) return new Map();
      const sql = `SELECT minute, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes
        WHERE service_id IN (SELECT value FROM json_each(?)) AND minute >= ? AND minute < ? GROUP BY minute`;
      return new Map((stmt(sql).all(JSON.stringify(serviceIds), first, end) as number[][]).map(([m, inv, fail]) => [m!, { invoked: inv ?? 0, failed: fail ?? 0 }]));
    },
    fallbackFailures(first, last) {
      const sql = 'SELECT COALESCE(SUM(fallback_failed), 0) FROM task_minutes WHERE minute >= ? AND minute <= ?';
      return (stmt(sql).get(first, last) as [number])[0];
    },
    taskMinutes(first, end, operation) {
      const sql = `SELECT operation, minute, SUM(completed), SUM(failed), SUM(degraded), SUM(attempts), SUM(cost_usd),
        SUM(level0), SUM(level1), SUM(level2), SUM(level3), SUM(level4), SUM(fallback_invoked), SUM(fallback_failed)
        FROM task_minutes WHERE minute >= ? AND minute < ? ${operation === undefined ? '' : 'AND operation = ?'} GROUP BY operation, minute`;
      return (stmt(sql).all(first, end, ...(operation === undefined ? [] : [operation])) as Row[]).map((r) => ({
        operation: r[0] as string, minute: r[1] as number, values: r.slice(2).map((v) => (v as number) ?? 0),
      }));
    },
    taskServices(first, end, operation) {
      const sql = `SELECT DISTINCT t.operation, v.name FROM task_minutes t JOIN services v ON v.id = t.service_id
        WHERE t.minute >= ? AND t.minute < ? ${operation === undefined ? '' : 'AND t.operation = ?'} ORDER BY v.name`;
      return (stmt(sql).all(first, end, ...(operation === undefined ? [] : [operation])) as string[][]).map(([op, service]) => ({ operation: op!, service: service! }));
    },
    costSplit(first, split, end) {
      const sql = `SELECT operation,
          SUM(CASE WHEN minute >= ? THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute >= ? THEN completed ELSE 0 END),
          SUM(CASE WHEN minute < ? THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute < ? THEN completed ELSE 0 END)
        FROM task_minutes WHERE minute >= ? AND minute < ? GROUP BY operation`;
      return (stmt(sql).all(split, split, split, split, first, end) as [string, number, number, number, number][]).map(
        ([operation, cost, completed, baseCost, baseCompleted]) => ({ operation, cost, completed, baseCost, baseCompleted }),
      );
    },
    probeOutcomes(first, last) {
      const sql = 'SELECT key_id, location, minute, probes, ok FROM probe_minutes WHERE minute >= ? AND minute <= ? AND probes > 0';
      return (stmt(sql).all(first, last) as [number, string, number, number, number][]).map(([keyId, location, minute, probes, ok]) => ({ keyId, location, minute, probes, ok }));
    },
  };
}

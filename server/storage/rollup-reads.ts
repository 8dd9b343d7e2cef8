import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import type { FallbackCounts, InstanceSums, KeySourceMinutes, ProbeMinute, RollupsPart } from './parts/rollups.ts';
import type { Segment } from './hour-segments.ts';
import type { KeyScope } from './parts/key-scope.ts';
import { sumList } from './sum-list.ts';

/** A result row as an array, in the order of the select list. */
export type Row = (number | string | null)[];

/**
 * What an engine gives the rollup reads: a way to run a statement (`?` placeholders, bound
 * in the order they appear) and the few spellings that differ between the dialects.
 */
export interface RollupQueries {
  all(sql: string, args: unknown[]): Row[] | Promise<Row[]>;
  /** A condition "`column` is one of the bound list": SQLite reads a JSON list, PostgreSQL an array. */
  inList(column: string): string;
  /** The bound value for `inList`. */
  list(ids: readonly number[]): unknown;
  /** A condition "(`idColumn`, `textColumn`) is one of the bound pairs": SQLite reads a JSON list, PostgreSQL a JSON array. */
  inPairs(idColumn: string, textColumn: string): string;
  /** A text column in an ORDER BY, compared as bytes (SQLite's order, whatever the database's locale). */
  binary(column: string): string;
  /** Which tables a span of minutes is read from (built hours where current, minutes elsewhere). */
  plan(first: number, end: number): Segment[] | Promise<Segment[]>;
}

/** The rollup reads of the rollups part (the engine adds the hourly aggregation). */
export type RollupReads = Omit<RollupsPart, 'buildHour' | 'warmHours'>;

const newKeySums = () => new Float64Array(KEY_COLUMNS.length);
const newProbeSums = () => new Float64Array(PROBE_COLUMNS.length);

const nested = <A, B, V>(out: Map<A, Map<B, V>>, a: A): Map<B, V> => {
  let inner = out.get(a);
  if (!inner) out.set(a, (inner = new Map()));
  return inner;
};

/**
 * The rollup reads, one definition for both engines: the statements and the folding of
 * their rows into the maps the verdicts, views and alert rules read. Grouped reads are
 * ordered by their groups: the maps keep that order, and the evidence lists instances in it
 * ("degraded on pod-0 and pod-1").
 */
export function createRollupReads(q: RollupQueries): RollupReads {
  // A list of keys is one statement (`= ANY` / `IN json_each`), not one per key (issue 38).
  const keyFilter = (keyId: KeyScope | undefined) => (keyId === undefined ? 'TRUE' : typeof keyId === 'number' ? 'key_id = ?' : q.inList('key_id'));
  const span = (keyId: KeyScope | undefined, from: number, to: number) =>
    keyId === undefined ? [from, to] : [typeof keyId === 'number' ? keyId : q.list(keyId), from, to];

  /** A grouped sum per segment, from `<table>_hours` or `<table>_minutes` as planned, folded into nested maps. */
  const grouped = async <K2>(segments: Segment[], table: 'key' | 'probe', group: string, cols: readonly string[], keyId: KeyScope | undefined, make: () => Float64Array) => {
    const out = new Map<number, Map<K2, Float64Array>>();
    // Ids order as numbers; a text group (a probe location) in binary order.
    const order = table === 'probe' ? q.binary(group) : group;
    for (const seg of segments) {
      const [rows, time] = seg.table === 'hours' ? [`${table}_hours`, 'hour'] : [`${table}_minutes`, 'minute'];
      const sql = `SELECT key_id, ${group}, ${sumList(cols)} FROM ${rows} WHERE ${keyFilter(keyId)} AND ${time} >= ? AND ${time} < ?
        GROUP BY key_id, ${group} ORDER BY key_id, ${order}`;
      for (const row of await q.all(sql, span(keyId, seg.from, seg.to))) {
        const inner = nested(out, row[0] as number);
        let sums = inner.get(row[1] as K2);
        if (!sums) inner.set(row[1] as K2, (sums = make()));
        for (let i = 0; i < cols.length; i++) sums[i]! += (row[2 + i] as number) ?? 0;
      }
    }
    return out;
  };

  /** Per-minute probe counts, newest minute first, per key and location. */
  const recentProbes = async (first: number, end: number, keyId?: number) => {
    const sql = `SELECT key_id, location, minute, probes, slow + error, misconfigured FROM probe_minutes
      WHERE ${keyFilter(keyId)} AND minute >= ? AND minute < ? ORDER BY key_id, ${q.binary('location')}, minute DESC`;
    const out = new Map<number, Map<string, ProbeMinute[]>>();
    for (const [k, location, minute, probes, failed, misconfigured] of await q.all(sql, span(keyId, first, end))) {
      const inner = nested(out, k as number);
      let list = inner.get(location as string);
      if (!list) inner.set(location as string, (list = []));
      list.push({ minute: minute as number, probes: probes as number, failed: failed as number, misconfigured: misconfigured as number });
    }
    return out;
  };

  return {
    async keyServiceSums(first, end, keyId) {
      return grouped<number>(await q.plan(first, end), 'key', 'service_id', KEY_COLUMNS, keyId, newKeySums);
    },
    async probeSums(first, end, keyId) {
      return grouped<string>(await q.plan(first, end), 'probe', 'location', PROBE_COLUMNS, keyId, newProbeSums);
    },
    async keySources(first, end, keyId) {
      const out: KeySourceMinutes = new Map();
      for (const seg of await q.plan(first, end)) {
        const sql = seg.table === 'hours'
          ? `SELECT key_id, source_id, SUM(minutes) FROM key_hour_sources WHERE ${keyFilter(keyId)} AND hour >= ? AND hour < ? GROUP BY key_id, source_id ORDER BY key_id, source_id`
          : `SELECT key_id, source_id, COUNT(*) FROM key_minute_sources WHERE ${keyFilter(keyId)} AND minute >= ? AND minute < ? GROUP BY key_id, source_id ORDER BY key_id, source_id`;
        for (const [k, source, minutes] of (await q.all(sql, span(keyId, seg.from, seg.to))) as number[][]) {
          const inner = nested(out, k!);
          inner.set(source!, (inner.get(source!) ?? 0) + minutes!);
        }
      }
      return out;
    },
    recentProbes,
    async probesBoth(first, end, keyId) {
      // Summed by the engine, so a row per key and location comes back instead of each
      // minute's counters, next to the per-minute counts' six columns.
      const [sums, recent] = await Promise.all([
        grouped<string>([{ table: 'minutes', from: first, to: end }], 'probe', 'location', PROBE_COLUMNS, keyId, newProbeSums),
        recentProbes(first, end, keyId),
      ]);
      return { sums, recent };
    },
    async keyMinutes(keyId, first, end) {
      const sql = `SELECT minute, service_id, ${KEY_COLUMNS.join(', ')} FROM key_minutes WHERE key_id = ? AND minute >= ? AND minute < ?`;
      const out = new Map<number, Map<number, Float64Array>>();
      for (const row of (await q.all(sql, [keyId, first, end])) as number[][]) {
        const sums = newKeySums();
        for (let i = 0; i < sums.length; i++) sums[i] = row[2 + i] ?? 0;
        nested(out, row[0]!).set(row[1]!, sums);
      }
      return out;
    },
    async sourcesPerMinute(keyId, first, end) {
      const sql = 'SELECT minute, COUNT(*) FROM key_minute_sources WHERE key_id = ? AND minute >= ? AND minute < ? GROUP BY minute';
      return new Map(((await q.all(sql, [keyId, first, end])) as [number, number][]).map(([m, n]) => [m, n]));
    },
    async probeMinutes(keyId, first, end) {
      const sql = `SELECT location, minute, ${PROBE_COLUMNS.join(', ')} FROM probe_minutes WHERE key_id = ? AND minute >= ? AND minute < ?`;
      const out = new Map<string, Map<number, Float64Array>>();
      for (const row of await q.all(sql, [keyId, first, end])) {
        const sums = newProbeSums();
        for (let i = 0; i < sums.length; i++) sums[i] = (row[2 + i] as number) ?? 0;
        nested(out, row[0] as string).set(row[1] as number, sums);
      }
      return out;
    },
    async instanceSums(keyId, from, to) {
      const sql = `SELECT source_id, SUM(calls), SUM(failed), SUM(slow), SUM(rejected), SUM(retries), MAX(last_end)
        FROM key_minute_sources WHERE key_id = ? AND minute >= ? AND minute < ? AND calls > 0 GROUP BY source_id ORDER BY source_id`;
      const out = new Map<number, InstanceSums>();
      for (const [source, calls, failed, slow, rejected, retries, lastEnd] of (await q.all(sql, [keyId, from - (from % 60_000), to])) as number[][]) {
        out.set(source!, { calls: calls!, failed: failed!, slow: slow!, rejected: rejected!, retries: retries!, lastEnd: lastEnd! });
      }
      return out;
    },
    async fallbackByService(first, end) {
      const sql = 'SELECT service_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes WHERE minute >= ? AND minute < ? GROUP BY service_id';
      return new Map(((await q.all(sql, [first, end])) as number[][]).map(([s, inv, fail]) => [s!, { invoked: inv ?? 0, failed: fail ?? 0 }]));
    },
    async fallbackByKey(first, end) {
      const sql = `SELECT service_id, key_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_key_minutes
        WHERE minute >= ? AND minute < ? GROUP BY service_id, key_id`;
      const out = new Map<number, Map<number, FallbackCounts>>();
      for (const [service, key, inv, fail] of (await q.all(sql, [first, end])) as number[][]) nested(out, service!).set(key!, { invoked: inv ?? 0, failed: fail ?? 0 });
      return out;
    },
    async fallbackMinutes(serviceIds, first, end) {
      if (serviceIds.length === 0) return new Map();
      const sql = `SELECT minute, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes
        WHERE ${q.inList('service_id')} AND minute >= ? AND minute < ? GROUP BY minute`;
      return new Map(((await q.all(sql, [q.list(serviceIds), first, end])) as number[][]).map(([m, inv, fail]) => [m!, { invoked: inv ?? 0, failed: fail ?? 0 }]));
    },
    async fallbackFailures(first, last) {
      const rows = await q.all('SELECT COALESCE(SUM(fallback_failed), 0) FROM task_minutes WHERE minute >= ? AND minute <= ?', [first, last]);
      return rows[0]![0] as number;
    },
    async taskMinutes(first, end, operation) {
      const sql = `SELECT operation, minute, SUM(completed), SUM(failed), SUM(degraded), SUM(attempts), SUM(cost_usd),
        SUM(level0), SUM(level1), SUM(level2), SUM(level3), SUM(level4), SUM(fallback_invoked), SUM(fallback_failed)
        FROM task_minutes WHERE minute >= ? AND minute < ? ${operation === undefined ? '' : 'AND operation = ?'} GROUP BY operation, minute`;
      return (await q.all(sql, operation === undefined ? [first, end] : [first, end, operation])).map((r) => ({
        operation: r[0] as string, minute: r[1] as number, values: r.slice(2).map((v) => (v as number) ?? 0),
      }));
    },
    async taskLevelSums(first, end) {
      const sql = `SELECT operation, SUM(completed), SUM(level0), SUM(level1), SUM(level2), SUM(level3), SUM(level4)
        FROM task_minutes WHERE minute >= ? AND minute < ? GROUP BY operation`;
      return (await q.all(sql, [first, end])).map((r) => ({ operation: r[0] as string, completed: (r[1] as number) ?? 0, levels: r.slice(2).map((v) => (v as number) ?? 0) }));
    },
    async taskServices(first, end, operation) {
      const sql = `SELECT operation, name FROM (SELECT DISTINCT t.operation, v.name FROM task_minutes t JOIN services v ON v.id = t.service_id
        WHERE t.minute >= ? AND t.minute < ? ${operation === undefined ? '' : 'AND t.operation = ?'}) d ORDER BY ${q.binary('name')}, ${q.binary('operation')}`;
      return ((await q.all(sql, operation === undefined ? [first, end] : [first, end, operation])) as string[][]).map(([op, service]) => ({ operation: op!, service: service! }));
    },
    async costSplit(first, split, end) {
      const sql = `SELECT operation,
          SUM(CASE WHEN minute >= ? THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute >= ? THEN completed ELSE 0 END),
          SUM(CASE WHEN minute < ? THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute < ? THEN completed ELSE 0 END)
        FROM task_minutes WHERE minute >= ? AND minute < ? GROUP BY operation`;
      return ((await q.all(sql, [split, split, split, split, first, end])) as [string, number, number, number, number][]).map(
        ([operation, cost, completed, baseCost, baseCompleted]) => ({ operation, cost, completed, baseCost, baseCompleted }),
      );
    },
    async probeOutcomes(first, last, except) {
      // The excluded pairs are filtered in the engine: their rows are never built (the alert pass reads an hour of every key's probe minutes).
      const [sql, args] = except?.length
        ? [`SELECT key_id, location, minute, probes, ok FROM probe_minutes WHERE minute >= ? AND minute <= ? AND probes > 0 AND NOT ${q.inPairs('key_id', 'location')}`,
          [first, last, JSON.stringify(except.map((p) => [p.keyId, p.location]))]]
        : ['SELECT key_id, location, minute, probes, ok FROM probe_minutes WHERE minute >= ? AND minute <= ? AND probes > 0', [first, last]];
      return ((await q.all(sql, args)) as [number, string, number, number, number][]).map(([keyId, location, minute, probes, ok]) => ({ keyId, location, minute, probes, ok }));
    },
    async probeActivity(first, last) {
      const sql = `SELECT key_id, location, MIN(minute), MAX(minute), COUNT(*) FROM probe_minutes WHERE minute >= ? AND minute <= ? AND probes > 0
        GROUP BY key_id, location`;
      // PostgreSQL returns COUNT(*) as a bigint string.
      return (await q.all(sql, [first, last])).map(([keyId, location, firstMinute, lastMinute, minutes]) => ({
        keyId: Number(keyId), location: location as string, firstMinute: Number(firstMinute), lastMinute: Number(lastMinute), minutes: Number(minutes),
      }));
    },
  };
}

import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import type { FallbackCounts, InstanceSums, KeySourceMinutes, ProbeMinute, RollupsPart } from '../parts/rollups.ts';
import type { Segment } from '../sqlite/hour-rollups.ts';
import { sumList } from '../sqlite/sum-list.ts';
import type { PostgresHourRollups } from './hour-rollups.ts';
import type { PgPool } from './pool.ts';

type Row = (number | string | null)[];
const newKeySums = () => new Float64Array(KEY_COLUMNS.length);
const newProbeSums = () => new Float64Array(PROBE_COLUMNS.length);

/**
 * The rollup reads on PostgreSQL: the same statements and the same folding into maps as the
 * SQLite reader, with `$n` parameters, rows as arrays, and arrays bound where SQLite reads a
 * JSON list. Statements are prepared per connection on first use (named by their text's index).
 * Grouped reads are ordered by their groups, as SQLite's GROUP BY returns them: the maps keep
 * that order and the evidence lists instances in it ("degraded on pod-0 and pod-1"), which a
 * hash aggregate would otherwise shuffle (text in binary order, `COLLATE "C"`, as SQLite sorts it
 * whatever the database's locale).
 */
export function createPostgresRollupReads(pool: PgPool, hours: PostgresHourRollups, now: () => number): Omit<RollupsPart, 'buildHour' | 'warmHours'> {
  const names = new Map<string, string>();
  const all = async (sql: string, args: unknown[]): Promise<Row[]> => {
    let name = names.get(sql);
    if (!name) names.set(sql, (name = `rollup_read_${names.size}`));
    return (await pool.query<Row>({ name, text: sql, values: args, rowMode: 'array' })).rows as unknown as Row[];
  };
  const keyFilter = (keyId: number | undefined, n: number) => (keyId === undefined ? 'TRUE' : `key_id = $${n}`);
  /** Parameters `(keyId?, from, to)` and their placeholders. */
  const span = (keyId: number | undefined, from: number, to: number) =>
    keyId === undefined ? { args: [from, to], f: '$1', t: '$2', k: keyFilter(undefined, 0) } : { args: [from, to, keyId], f: '$1', t: '$2', k: keyFilter(keyId, 3) };

  const grouped = async <K2>(segments: Segment[], table: 'key' | 'probe', group: string, cols: readonly string[], keyId: number | undefined, make: () => Float64Array) => {
    const out = new Map<number, Map<K2, Float64Array>>();
    for (const seg of segments) {
      const [rows, time] = seg.table === 'hours' ? [`${table}_hours`, 'hour'] : [`${table}_minutes`, 'minute'];
      const p = span(keyId, seg.from, seg.to);
      const sql = `SELECT key_id, ${group}, ${sumList(cols)} FROM ${rows} WHERE ${p.k} AND ${time} >= ${p.f} AND ${time} < ${p.t} GROUP BY key_id, ${group} ORDER BY key_id, ${group}${group === 'location' ? ' COLLATE "C"' : ''}`;
      for (const row of await all(sql, p.args)) {
        const k = row[0] as number;
        let inner = out.get(k);
        if (!inner) out.set(k, (inner = new Map()));
        let sums = inner.get(row[1] as K2);
        if (!sums) inner.set(row[1] as K2, (sums = make()));
        for (let i = 0; i < cols.length; i++) sums[i]! += (row[2 + i] as number) ?? 0;
      }
    }
    return out;
  };
  const nested = <A, B, V>(out: Map<A, Map<B, V>>, a: A) => {
    let inner = out.get(a);
    if (!inner) out.set(a, (inner = new Map()));
    return inner;
  };

  /** Per-minute probe counts, newest minute first, per key and location. */
  const recentProbes = async (first: number, end: number, keyId?: number) => {
    const p = span(keyId, first, end);
    const sql = `SELECT key_id, location, minute, probes, slow + error, misconfigured FROM probe_minutes
      WHERE ${p.k} AND minute >= $1 AND minute < $2 ORDER BY key_id, location COLLATE "C", minute DESC`;
    const out = new Map<number, Map<string, ProbeMinute[]>>();
    for (const [k, location, minute, probes, failed, misconfigured] of await all(sql, p.args)) {
      const inner = nested(out, k as number);
      let list = inner.get(location as string);
      if (!list) inner.set(location as string, (list = []));
      list.push({ minute: minute as number, probes: probes as number, failed: failed as number, misconfigured: misconfigured as number });
    }
    return out;
  };

  return {
    async keyServiceSums(first, end, keyId) {
      return grouped<number>(await hours.plan(first, end, now()), 'key', 'service_id', KEY_COLUMNS, keyId, newKeySums);
    },
    async probeSums(first, end, keyId) {
      return grouped<string>(await hours.plan(first, end, now()), 'probe', 'location', PROBE_COLUMNS, keyId, newProbeSums);
    },
    async keySources(first, end, keyId) {
      const out: KeySourceMinutes = new Map();
      for (const seg of await hours.plan(first, end, now())) {
        const p = span(keyId, seg.from, seg.to);
        const sql = seg.table === 'hours'
          ? `SELECT key_id, source_id, SUM(minutes) FROM key_hour_sources WHERE ${p.k} AND hour >= $1 AND hour < $2 GROUP BY key_id, source_id ORDER BY key_id, source_id`
          : `SELECT key_id, source_id, COUNT(*) FROM key_minute_sources WHERE ${p.k} AND minute >= $1 AND minute < $2 GROUP BY key_id, source_id ORDER BY key_id, source_id`;
        for (const [k, source, minutes] of (await all(sql, p.args)) as number[][]) {
          const inner = nested(out, k!);
          inner.set(source!, (inner.get(source!) ?? 0) + minutes!);
        }
      }
      return out;
    },
    recentProbes,
    async probesBoth(first, end, keyId) {
      // Two statements, not SQLite's one read of every minute row: PostgreSQL sums on the
      // server, so a row per key and location comes back instead of each minute's 23 columns,
      // and the per-minute counts come back with 6 (parsing rows is what costs here, not the scan).
      const [sums, recent] = await Promise.all([
        grouped<string>([{ table: 'minutes', from: first, to: end }], 'probe', 'location', PROBE_COLUMNS, keyId, newProbeSums),
        recentProbes(first, end, keyId),
      ]);
      return { sums, recent };
    },
    async keyMinutes(keyId, first, end) {
      const sql = `SELECT minute, service_id, ${KEY_COLUMNS.join(', ')} FROM key_minutes WHERE key_id = $1 AND minute >= $2 AND minute < $3`;
      const out = new Map<number, Map<number, Float64Array>>();
      for (const row of (await all(sql, [keyId, first, end])) as number[][]) {
        const sums = newKeySums();
        for (let i = 0; i < sums.length; i++) sums[i] = row[2 + i] ?? 0;
        nested(out, row[0]!).set(row[1]!, sums);
      }
      return out;
    },
    async sourcesPerMinute(keyId, first, end) {
      const sql = 'SELECT minute, COUNT(*) FROM key_minute_sources WHERE key_id = $1 AND minute >= $2 AND minute < $3 GROUP BY minute';
      return new Map(((await all(sql, [keyId, first, end])) as [number, number][]).map(([m, n]) => [m, n]));
    },
    async probeMinutes(keyId, first, end) {
      const sql = `SELECT location, minute, ${PROBE_COLUMNS.join(', ')} FROM probe_minutes WHERE key_id = $1 AND minute >= $2 AND minute < $3`;
      const out = new Map<string, Map<number, Float64Array>>();
      for (const row of await all(sql, [keyId, first, end])) {
        const sums = newProbeSums();
        for (let i = 0; i < sums.length; i++) sums[i] = (row[2 + i] as number) ?? 0;
        nested(out, row[0] as string).set(row[1] as number, sums);
      }
      return out;
    },
    async instanceSums(keyId, from, to) {
      const sql = `SELECT source_id, SUM(calls), SUM(failed), SUM(slow), SUM(rejected), SUM(retries), MAX(last_end)
        FROM key_minute_sources WHERE key_id = $1 AND minute >= $2 AND minute < $3 AND calls > 0 GROUP BY source_id ORDER BY source_id`;
      const out = new Map<number, InstanceSums>();
      for (const [source, calls, failed, slow, rejected, retries, lastEnd] of (await all(sql, [keyId, from - (from % 60_000), to])) as number[][]) {
        out.set(source!, { calls: calls!, failed: failed!, slow: slow!, rejected: rejected!, retries: retries!, lastEnd: lastEnd! });
      }
      return out;
    },
    async fallbackByService(first, end) {
      const sql = 'SELECT service_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes WHERE minute >= $1 AND minute < $2 GROUP BY service_id';
      return new Map(((await all(sql, [first, end])) as number[][]).map(([s, inv, fail]) => [s!, { invoked: inv ?? 0, failed: fail ?? 0 }]));
    },
    async fallbackByKey(first, end) {
      const sql = `SELECT service_id, key_id, SUM(fallback_invoked), SUM(fallback_failed) FROM task_key_minutes
        WHERE minute >= $1 AND minute < $2 GROUP BY service_id, key_id`;
      const out = new Map<number, Map<number, FallbackCounts>>();
      for (const [service, key, inv, fail] of (await all(sql, [first, end])) as number[][]) nested(out, service!).set(key!, { invoked: inv ?? 0, failed: fail ?? 0 });
      return out;
    },
    async fallbackMinutes(serviceIds, first, end) {
      if (serviceIds.length === 0) return new Map();
      const sql = `SELECT minute, SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes
        WHERE service_id = ANY($1::bigint[]) AND minute >= $2 AND minute < $3 GROUP BY minute`;
      return new Map(((await all(sql, [serviceIds, first, end])) as number[][]).map(([m, inv, fail]) => [m!, { invoked: inv ?? 0, failed: fail ?? 0 }]));
    },
    async fallbackFailures(first, last) {
      const rows = await all('SELECT COALESCE(SUM(fallback_failed), 0) FROM task_minutes WHERE minute >= $1 AND minute <= $2', [first, last]);
      return rows[0]![0] as number;
    },
    async taskMinutes(first, end, operation) {
      const sql = `SELECT operation, minute, SUM(completed), SUM(failed), SUM(degraded), SUM(attempts), SUM(cost_usd),
        SUM(level0), SUM(level1), SUM(level2), SUM(level3), SUM(level4), SUM(fallback_invoked), SUM(fallback_failed)
        FROM task_minutes WHERE minute >= $1 AND minute < $2 ${operation === undefined ? '' : 'AND operation = $3'} GROUP BY operation, minute`;
      return (await all(sql, operation === undefined ? [first, end] : [first, end, operation])).map((r) => ({
        operation: r[0] as string, minute: r[1] as number, values: r.slice(2).map((v) => (v as number) ?? 0),
      }));
    },
    async taskServices(first, end, operation) {
      const sql = `SELECT operation, name FROM (SELECT DISTINCT t.operation, v.name FROM task_minutes t JOIN services v ON v.id = t.service_id
        WHERE t.minute >= $1 AND t.minute < $2 ${operation === undefined ? '' : 'AND t.operation = $3'}) d ORDER BY name COLLATE "C", operation COLLATE "C"`;
      return ((await all(sql, operation === undefined ? [first, end] : [first, end, operation])) as string[][]).map(([op, service]) => ({ operation: op!, service: service! }));
    },
    async costSplit(first, split, end) {
      const sql = `SELECT operation,
          SUM(CASE WHEN minute >= $1 THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute >= $1 THEN completed ELSE 0 END),
          SUM(CASE WHEN minute < $1 THEN cost_usd ELSE 0 END), SUM(CASE WHEN minute < $1 THEN completed ELSE 0 END)
        FROM task_minutes WHERE minute >= $2 AND minute < $3 GROUP BY operation`;
      return ((await all(sql, [split, first, end])) as [string, number, number, number, number][]).map(
        ([operation, cost, completed, baseCost, baseCompleted]) => ({ operation, cost, completed, baseCost, baseCompleted }),
      );
    },
    async probeOutcomes(first, last) {
      const sql = 'SELECT key_id, location, minute, probes, ok FROM probe_minutes WHERE minute >= $1 AND minute <= $2 AND probes > 0';
      return ((await all(sql, [first, last])) as [number, string, number, number, number][]).map(([keyId, location, minute, probes, ok]) => ({ keyId, location, minute, probes, ok }));
    },
  };
}

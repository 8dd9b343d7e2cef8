import { KEY_COLUMNS, PROBE_COLUMNS, SOURCE_COLUMNS, TASK_COLUMNS, TASK_KEY_COLUMNS } from '@breakerbox/protocol';
import type { RollupAccumulator, RollupStatements } from '../rollups.ts';
import type { PgClient } from './pool.ts';

type Column = { name: string; type: 'bigint' | 'float8' | 'text' };
type Merge = 'add' | 'max';

/** Money and summed milliseconds are the only non-integer counters. */
const FLOAT_COUNTERS = new Set(['cost_usd', 'total_ms_sum']);
const counters = (names: readonly string[]): Column[] =>
  names.map((name) => ({ name, type: FLOAT_COUNTERS.has(name) ? 'float8' : 'bigint' }));

interface Table {
  name: string;
  ids: Column[];
  values: Column[];
  /** How each value column merges into an existing row (default: added). */
  merge?: Record<string, Merge>;
}

const minute: Column = { name: 'minute', type: 'bigint' };
const keyId: Column = { name: 'key_id', type: 'bigint' };
const serviceId: Column = { name: 'service_id', type: 'bigint' };

/**
 * The rollup tables in the one order every transaction upserts them in, rows sorted by
 * primary key: two collectors writing the same minutes then take row locks in the same
 * order and wait for each other instead of deadlocking.
 */
const TABLES = {
  key: { name: 'key_minutes', ids: [minute, keyId, serviceId], values: counters(KEY_COLUMNS) },
  task: { name: 'task_minutes', ids: [minute, { name: 'operation', type: 'text' }, serviceId], values: counters(TASK_COLUMNS) },
  taskKey: { name: 'task_key_minutes', ids: [minute, keyId, serviceId], values: counters(TASK_KEY_COLUMNS) },
  probe: { name: 'probe_minutes', ids: [minute, keyId, { name: 'location', type: 'text' }], values: counters(PROBE_COLUMNS) },
  keyTotal: { name: 'key_totals', ids: [keyId, serviceId], values: counters(KEY_COLUMNS) },
  taskTotal: { name: 'task_totals', ids: [{ name: 'operation', type: 'text' }, serviceId], values: counters(TASK_COLUMNS) },
  probeTotal: { name: 'probe_totals', ids: [keyId, { name: 'location', type: 'text' }], values: counters(PROBE_COLUMNS) },
  keySource: {
    name: 'key_minute_sources', ids: [minute, keyId, { name: 'source_id', type: 'bigint' }], values: counters(SOURCE_COLUMNS),
    merge: { last_end: 'max' },
  },
  transitionTotal: {
    name: 'key_transition_totals', ids: [keyId, serviceId, { name: 'to_state', type: 'text' }, { name: 'reason', type: 'text' }],
    values: counters(['transitions']),
  },
} satisfies Record<keyof RollupStatements, Table>;

type TableName = keyof typeof TABLES;

function upsertSql(t: Table): string {
  const cols = [...t.ids, ...t.values];
  const set = t.values.map((c) =>
    t.merge?.[c.name] === 'max'
      ? `${c.name} = GREATEST(${t.name}.${c.name}, EXCLUDED.${c.name})`
      : `${c.name} = ${t.name}.${c.name} + EXCLUDED.${c.name}`,
  );
  return `INSERT INTO ${t.name} (${cols.map((c) => c.name).join(', ')})
    SELECT * FROM UNNEST(${cols.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})
    ON CONFLICT (${t.ids.map((c) => c.name).join(', ')}) DO UPDATE SET ${set.join(', ')}`;
}

const SQL = Object.fromEntries(Object.entries(TABLES).map(([k, t]) => [k, upsertSql(t)])) as Record<TableName, string>;

const compareIds = (a: unknown[], b: unknown[]): number => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number | string;
    const y = b[i] as number | string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/**
 * Writes what a RollupAccumulator gathered (the same accumulation as the SQLite engine) as
 * one `INSERT … SELECT FROM UNNEST … ON CONFLICT DO UPDATE` per table: a batch's rollups
 * cost nine statements whatever its size. Call inside the batch's transaction.
 */
export async function writeRollups(client: PgClient, acc: RollupAccumulator): Promise<void> {
  const rows = Object.fromEntries(Object.keys(TABLES).map((k) => [k, [] as unknown[][]])) as Record<TableName, unknown[][]>;
  const collect = Object.fromEntries(
    Object.keys(TABLES).map((k) => [k, { run: (...args: unknown[]) => void rows[k as TableName].push(args) }]),
  ) as unknown as RollupStatements;
  acc.flush(collect);
  for (const name of Object.keys(TABLES) as TableName[]) {
    const list = rows[name];
    if (list.length === 0) continue;
    const width = TABLES[name].ids.length;
    list.sort((a, b) => compareIds(a.slice(0, width), b.slice(0, width)));
    const columns = (TABLES[name].ids.length + TABLES[name].values.length);
    const arrays: unknown[][] = Array.from({ length: columns }, () => new Array(list.length));
    for (let r = 0; r < list.length; r++) for (let c = 0; c < columns; c++) arrays[c]![r] = list[r]![c];
    await client.query({ name: `rollup_${name}`, text: SQL[name], values: arrays });
  }
}

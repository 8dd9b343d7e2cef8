/**
 * `npm run bench -- pg-client`: which PostgreSQL client the engine uses. The same window
 * rows (the bulk of ingest: 19 columns, two of them JSON) are written in batches of 1,000,
 * one transaction per batch, by `pg` (node-postgres) and `postgres` (porsager), each with
 * the bulk forms it offers: a multi-row INSERT with bound parameters, one INSERT … SELECT
 * FROM UNNEST of one array per column, and COPY FROM STDIN where the client supports it
 * without another package; and UNNEST into a twin table whose JSON columns are TEXT instead
 * of JSONB. Methods take turns round by round so drift hits all alike.
 * Figures land in docs/storage.md.
 */
import pg from 'pg';
import postgres from 'postgres';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { startPostgresCluster } from '../support/postgres-cluster.ts';

const BATCH = 1000;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const ROUNDS = 3;

const COLUMNS = ['key_id', 'source_id', 'start', '"end"', 'calls', 'ok', 'slow', 'errors', 'rejected', 'short_circuited', 'retries',
  'cold_excluded', 'half_open_ok', 'half_open_failed', 'latency', 'ttft', 'input_tokens', 'output_tokens', 'cost_usd'];
const TYPES = ['bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'jsonb', 'bigint', 'bigint', 'bigint',
  'bigint', 'bigint', 'bigint', 'jsonb', 'jsonb', 'bigint', 'bigint', 'float8'];

type Row = (number | string | null)[];

function makeRows(n: number, seed: number): Row[] {
  const rows: Row[] = [];
  const t = 1_764_000_000_000 + seed * 1_000_000;
  for (let i = 0; i < n; i++) {
    const calls = 50 + (i % 40);
    rows.push([i % 50, i % 7, t + i * 10, t + i * 10 + 10_000, calls, calls - 3, 1, JSON.stringify({ server: 2, timeout: 1 }), 0, 0, 2,
      0, 0, 0, JSON.stringify({ bounds: [100, 250, 500, 1000, 2500], counts: [10, 20, 15, 4, 1, 0] }), null, 12_000, 3_400, 0.0123 * calls]);
  }
  return rows;
}

const ddl = `CREATE TABLE IF NOT EXISTS bench_windows (id BIGSERIAL PRIMARY KEY, key_id BIGINT NOT NULL, source_id BIGINT NOT NULL,
  start BIGINT NOT NULL, "end" BIGINT NOT NULL, calls BIGINT NOT NULL, ok BIGINT NOT NULL, slow BIGINT NOT NULL, errors JSONB NOT NULL,
  rejected BIGINT NOT NULL, short_circuited BIGINT NOT NULL, retries BIGINT NOT NULL, cold_excluded BIGINT NOT NULL,
  half_open_ok BIGINT NOT NULL, half_open_failed BIGINT NOT NULL, latency JSONB NOT NULL, ttft JSONB, input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL, cost_usd DOUBLE PRECISION NOT NULL);
  CREATE INDEX IF NOT EXISTS bench_windows_time ON bench_windows ("end");
  CREATE TABLE IF NOT EXISTS bench_windows_text (LIKE bench_windows INCLUDING DEFAULTS);
  ALTER TABLE bench_windows_text ALTER COLUMN errors TYPE TEXT, ALTER COLUMN latency TYPE TEXT, ALTER COLUMN ttft TYPE TEXT;
  CREATE INDEX IF NOT EXISTS bench_windows_text_time ON bench_windows_text ("end");`;

const multiRowSql = (n: number) => {
  const values: string[] = [];
  for (let r = 0; r < n; r++) values.push(`(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`);
  return `INSERT INTO bench_windows (${COLUMNS.join(', ')}) VALUES ${values.join(', ')}`;
};
const unnestSql = `INSERT INTO bench_windows (${COLUMNS.join(', ')})
  SELECT * FROM UNNEST(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;
const unnestTextSql = `INSERT INTO bench_windows_text (${COLUMNS.join(', ')})
  SELECT * FROM UNNEST(${TYPES.map((t, i) => `$${i + 1}::${t === 'jsonb' ? 'text' : t}[]`).join(', ')})`;
const columnsOf = (rows: Row[]) => COLUMNS.map((_, c) => rows.map((r) => r[c]!));
const copyText = (rows: Row[]) =>
  rows.map((r) => r.map((v) => (v === null ? '\\N' : String(v))).join('\t')).join('\n') + '\n';

type Method = { name: string; write(rows: Row[]): Promise<void>; close(): Promise<void> };

async function pgMethods(url: string): Promise<Method[]> {
  const make = async () => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined); // the cluster stopping at the end
    await client.connect();
    return client;
  };
  const a = await make();
  const b = await make();
  const c = await make();
  const multi = multiRowSql(BATCH);
  return [
    {
      name: 'pg multi-row INSERT',
      async write(rows) {
        await a.query('BEGIN');
        await a.query({ name: 'multi', text: multi, values: rows.flat() });
        await a.query('COMMIT');
      },
      close: () => a.end(),
    },
    {
      name: 'pg UNNEST',
      async write(rows) {
        await b.query('BEGIN');
        await b.query({ name: 'unnest', text: unnestSql, values: columnsOf(rows) });
        await b.query('COMMIT');
      },
      close: () => b.end(),
    },
    {
      name: 'pg UNNEST, JSON as TEXT',
      async write(rows) {
        await c.query('BEGIN');
        await c.query({ name: 'unnest_text', text: unnestTextSql, values: columnsOf(rows) });
        await c.query('COMMIT');
      },
      close: () => c.end(),
    },
  ];
}

async function postgresMethods(url: string): Promise<Method[]> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  const names = COLUMNS.map((c) => c.replaceAll('"', ''));
  return [
    {
      name: 'postgres multi-row INSERT',
      async write(rows) {
        const objects = rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]])));
        await sql.begin((tx) => tx`INSERT INTO bench_windows ${tx(objects, ...names)}`);
      },
      close: async () => undefined,
    },
    {
      name: 'postgres UNNEST',
      async write(rows) {
        await sql.begin((tx) => tx.unsafe(unnestSql, columnsOf(rows) as never[], { prepare: true }));
      },
      close: async () => undefined,
    },
    {
      name: 'postgres UNNEST, JSON as TEXT',
      async write(rows) {
        await sql.begin((tx) => tx.unsafe(unnestTextSql, columnsOf(rows) as never[], { prepare: true }));
      },
      close: async () => undefined,
    },
    {
      name: 'postgres COPY',
      async write(rows) {
        await sql.begin(async (tx) => {
          const target: Writable = await tx`COPY bench_windows (${tx.unsafe(COLUMNS.join(', '))}) FROM STDIN`.writable();
          await pipeline(Readable.from([copyText(rows)]), target);
        });
      },
      close: () => sql.end(),
    },
  ];
}

const cluster = await startPostgresCluster({ durable: true });
try {
  const setup = new pg.Client({ connectionString: cluster.url });
  setup.on('error', () => undefined);
  await setup.connect();
  await setup.query(ddl);
  const methods = [...(await pgMethods(cluster.url)), ...(await postgresMethods(cluster.url))];
  const batches = Array.from({ length: BATCHES }, (_, i) => makeRows(BATCH, i));
  for (const m of methods) await m.write(batches[0]!); // warm-up: prepared statements, JIT
  const totals = new Map<string, number>(methods.map((m) => [m.name, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const m of methods) {
      const t0 = performance.now();
      for (const rows of batches) await m.write(rows);
      totals.set(m.name, totals.get(m.name)! + (performance.now() - t0));
    }
  }
  const rowsWritten = (await setup.query('SELECT ((SELECT count(*) FROM bench_windows) + (SELECT count(*) FROM bench_windows_text))::int AS n')).rows[0].n as number;
  const expected = methods.length * BATCH * (BATCHES * ROUNDS + 1);
  if (rowsWritten !== expected) throw new Error(`expected ${expected} rows, table has ${rowsWritten}`);
  console.log(`${BATCHES} batches x ${BATCH} window rows per method and round, ${ROUNDS} rounds, one transaction per batch (durable cluster: fsync on)`);
  console.log('method                          rows/s');
  for (const m of methods) {
    const rate = (BATCH * BATCHES * ROUNDS) / (totals.get(m.name)! / 1000);
    console.log(`${m.name.padEnd(30)} ${Math.round(rate).toLocaleString('en-US').padStart(8)}`);
  }
  for (const m of methods) await m.close();
  await setup.end();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cluster.stop();
}

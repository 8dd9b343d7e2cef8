/**
 * Where a PostgreSQL `/api/verdicts` or `/api/keys` request spends its time (not a benchmark:
 * `node bin/run-ts.js test/bench/pg-verdicts-profile.ts [url ...]`). Seeds the verdicts
 * benchmark's day on a throwaway durable cluster, then times every statement the storage
 * sends through its pool during a few requests of each URL (default: the benchmark's four
 * and `alert-pass`, one alert evaluation),
 * and prints per URL the request time, the time spent waiting on statements, and the
 * statements by total time with `EXPLAIN (ANALYZE, BUFFERS)` of the costliest ones.
 */
import pg from 'pg';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import { startPostgresCluster } from '../support/postgres-cluster.ts';
import { loadLine } from './bench-engines.ts';
import { postgresSink } from './seed-sink.ts';
import { BENCH_DAY, seedDay } from './verdicts-seed.ts';

const RUNS = 5;
const EXPLAINED = 3;
/** What to profile: API paths, or `alert-pass` for one alert evaluation. */
const targets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['/api/verdicts?window=15m', '/api/keys?window=15m', '/api/verdicts?window=24h', '/api/keys?window=24h', 'alert-pass'];

interface Timed { text: string; values: unknown[]; ms: number }
let log: Timed[] | undefined;
// Every pool read of the storage goes through Pool.prototype.query: time it while `log` is set.
const query = pg.Pool.prototype.query as (this: pg.Pool, ...args: unknown[]) => Promise<unknown>;
(pg.Pool.prototype as unknown as { query: typeof query }).query = async function (this: pg.Pool, ...args: unknown[]) {
  const a = performance.now();
  const result = await query.apply(this, args);
  const q = args[0] as string | { text: string; values?: unknown[] };
  log?.push({ text: typeof q === 'string' ? q : q.text, values: (typeof q === 'string' ? args[1] : q.values) as unknown[] ?? [], ms: performance.now() - a });
  return result;
};

const cluster = await startPostgresCluster({ durable: true });
try {
  const url = await cluster.createDatabase('verdicts_profile');
  const config = loadConfig({ env: { BREAKERBOX_DB: url, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const app = await buildApp({ config, logger: false });
  await app.ready();
  const token = (await app.storage.tokens.create('profile', ['admin'])).secret;
  const sink = postgresSink(url);
  const now = Date.now() - (Date.now() % 60_000);
  await seedDay(app, sink, BENCH_DAY, now, (line) => console.log(line));
  await sink.close();
  await app.storage.rollups.warmHours(8 * 24 * 3_600_000, Date.now());
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE');
  console.log(`load average ${loadLine()}`);
  for (const path of targets) {
    const get = () => (path === 'alert-pass' ? app.alerts.evaluate(Date.now()) : app.inject({ url: path, headers: { authorization: `Bearer ${token}` } }));
    await get();
    log = [];
    const a = performance.now();
    for (let i = 0; i < RUNS; i++) await get();
    const requestMs = (performance.now() - a) / RUNS;
    const statements = log;
    log = undefined;
    const byText = new Map<string, { n: number; ms: number; slowest: Timed }>();
    for (const s of statements) {
      const e = byText.get(s.text) ?? { n: 0, ms: 0, slowest: s };
      e.n++;
      e.ms += s.ms;
      if (s.ms >= e.slowest.ms) e.slowest = s;
      byText.set(s.text, e);
    }
    const waited = statements.reduce((t, s) => t + s.ms, 0) / RUNS;
    console.log(`\n=== ${path}: ${requestMs.toFixed(1)} ms a request, ${waited.toFixed(1)} ms of it waiting on ${statements.length / RUNS} statements`);
    const top = [...byText.values()].sort((x, y) => y.ms - x.ms);
    for (const e of top.slice(0, 8)) console.log(`${(e.ms / RUNS).toFixed(1).padStart(8)} ms  x${(e.n / RUNS).toFixed(0).padStart(4)}  ${e.slowest.text.replace(/\s+/g, ' ').slice(0, 220)}`);
    for (const e of top.slice(0, EXPLAINED)) {
      const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${e.slowest.text}`, e.slowest.values);
      console.log(`\n-- ${e.slowest.text.replace(/\s+/g, ' ').slice(0, 160)}  ${JSON.stringify(e.slowest.values).slice(0, 120)}`);
      for (const row of plan.rows as { 'QUERY PLAN': string }[]) console.log(row['QUERY PLAN']);
    }
  }
  await client.end();
  await app.close();
} finally {
  await cluster.stop();
}

/**
 * Verdicts and alerts benchmark (issues 5 and 13), on each storage engine
 * (`--engine sqlite|postgres|both`, default both when PostgreSQL is installed; PostgreSQL on a
 * throwaway durable local cluster). A database holding 24 h for 200 keys x 5 instances
 * (10-second windows) plus probes from 2 locations every minute (`verdicts-seed.ts`: the
 * last 2 h through the real store, the 22 h before written straight into the rollup tables
 * through `seed-sink.ts`, the same rows on both engines), then p50/p95 of `GET /api/verdicts`
 * and `GET /api/keys` for 15 m and 24 h windows (through fastify's inject, JSON included) and
 * of one alert evaluation pass.
 * Targets: p95 < 100 ms (15 m), < 1 s (24 h); one evaluation pass < 200 ms. One table at
 * the end: a row per engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import { sqlOf } from '../support/sql.ts';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { benchEngines, loadLine, type BenchEngine } from './bench-engines.ts';
import { postgresSink, sqliteSink } from './seed-sink.ts';
import { BENCH_DAY, seedDay } from './verdicts-seed.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** Seeds the day on `engine` (PostgreSQL: a new database in `cluster`), then times the reads; the p95s in `LABELS` order. */
async function benchEngine(engine: BenchEngine, cluster?: PostgresCluster): Promise<{ p95: number; ok: boolean }[]> {
  const now = Date.now() - (Date.now() % MIN);
  const dir = mkdtempSync(join(tmpdir(), 'bbx-verdicts-bench-'));
  const url = engine === 'postgres' ? await cluster!.createDatabase(`verdicts_${process.pid}`) : join(dir, 'bench.db');
  console.log(`\n--- ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ---`);
  const config = loadConfig({ env: { BREAKERBOX_DB: url, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const app = await buildApp({ config, logger: false });
  await app.ready();
  const token = (await app.storage.tokens.create('bench', ['admin'])).secret;
  const db = engine === 'sqlite' ? sqliteSink(sqlOf(app)) : postgresSink(url);

  const seeded = await seedDay(app, db, BENCH_DAY, now, (line) => console.log(line));
  const tWarm = performance.now();
  const built = await app.storage.rollups.warmHours(8 * 24 * HOUR, Date.now());
  const warmMs = performance.now() - tWarm;
  const counts = new Map<string, number>();
  for (const t of ['key_minutes', 'key_minute_sources', 'probe_minutes', 'window_events', 'probe_events', 'transition_events']) counts.set(t, await db.count(t));
  const rows = (t: string) => counts.get(t)!.toLocaleString('en-US');
  console.log(`seeded in ${((seeded.directMs + seeded.storeMs) / 1000).toFixed(1)} s: rollups direct ${(seeded.directMs / 1000).toFixed(1)} s, ` +
    `${seeded.events.toLocaleString('en-US')} events of the last ${BENCH_DAY.recentHours} h through the store ${(seeded.storeMs / 1000).toFixed(1)} s`);
  console.log(`rows: key_minutes ${rows('key_minutes')}, key_minute_sources ${rows('key_minute_sources')}, probe_minutes ${rows('probe_minutes')}, ` +
    `window_events ${rows('window_events')}, probe_events ${rows('probe_events')}, transition_events ${rows('transition_events')}`);
  console.log(`hourly aggregates: ${built.built} hours (of the 8 days the job covers) built after seeding in ${(warmMs / 1000).toFixed(1)} s, those the collector's background job had not built yet`);

  const pctl = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;
  async function measure(label: string, runs: number, target: number, fn: () => Promise<unknown> | unknown): Promise<{ p95: number; ok: boolean }> {
    await fn(); // warm-up: statement preparation, page cache
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const a = performance.now();
      await fn();
      times.push(performance.now() - a);
    }
    const p50 = pctl(times, 0.5);
    const p95 = pctl(times, 0.95);
    const ok = p95 < target;
    console.log(`${label.padEnd(34)} p50 ${p50.toFixed(1).padStart(7)} ms   p95 ${p95.toFixed(1).padStart(7)} ms   target p95 < ${target} ms  ${ok ? 'ok' : 'MISSED'}`);
    return { p95, ok };
  }
  const get = (url: string) => async () => {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res.body.length;
  };

  const verdicts15 = JSON.parse((await app.inject({ url: '/api/verdicts?window=15m', headers: { authorization: `Bearer ${token}` } })).body);
  const tally = new Map<string, number>();
  for (const v of verdicts15.verdicts) tally.set(`${v.verdict}${v.hint ? `/${v.hint}` : ''}`, (tally.get(`${v.verdict}${v.hint ? `/${v.hint}` : ''}`) ?? 0) + 1);
  console.log(`verdicts over 15 m: ${[...tally].map(([k, n]) => `${k} ${n}`).join(', ')}`);

  const results = [
    await measure('GET /api/verdicts?window=15m', 30, 100, get('/api/verdicts?window=15m')),
    await measure('GET /api/keys?window=15m', 30, 100, get('/api/keys?window=15m')),
    await measure('GET /api/verdicts?window=24h', 15, 1000, get('/api/verdicts?window=24h')),
    await measure('GET /api/keys?window=24h', 15, 1000, get('/api/keys?window=24h')),
    await measure('alert evaluation pass', 20, 200, () => app.alerts.evaluate(Date.now())),
  ];
  const firing = (await app.inject({ url: '/api/alerts?state=firing', headers: { authorization: `Bearer ${token}` } })).json().alerts.length;
  console.log(`alerts firing after the passes: ${firing}`);
  await db.close();
  await app.close();
  if (process.env.BENCH_KEEP_DB && engine === 'sqlite') console.log(`database kept at ${join(dir, 'bench.db')}`);
  else rmSync(dir, { recursive: true, force: true });
  return results;
}

const LABELS = ['verdicts 15m', 'keys 15m', 'verdicts 24h', 'keys 24h', 'alert pass'];
const engines = benchEngines(process.argv.slice(2));
const table: [string, { p95: number; ok: boolean }[]][] = [];
let cluster: PostgresCluster | undefined;
try {
  if (engines.includes('sqlite')) table.push(['SQLite', await benchEngine('sqlite')]);
  if (engines.includes('postgres')) {
    cluster = await startPostgresCluster({ durable: true });
    table.push(['PostgreSQL', await benchEngine('postgres', cluster)]);
  }
} finally {
  await cluster?.stop();
}
console.log(`\np95 in ms (load average ${loadLine()}; targets: 15m < 100, 24h < 1,000, alert pass < 200)`);
console.log(`engine      ${LABELS.map((l) => l.padStart(13)).join('')}`);
for (const [engine, results] of table) {
  console.log(`${engine.padEnd(12)}${results.map((r) => `${r.p95.toFixed(1)}${r.ok ? '' : '!'}`.padStart(13)).join('')}`);
}
if (table.some(([, results]) => results.some((r) => !r.ok))) {
  console.log('(! = target missed)');
  process.exitCode = 1;
}

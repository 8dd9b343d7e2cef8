/**
 * Verdicts and alerts benchmark (issues 5, 13 and 30), on each storage engine
 * (`--engine sqlite|postgres|both`, default SQLite; on PostgreSQL the full collector stores the traffic and
 * the incremental one hears of it through the change log; PostgreSQL on a throwaway durable local cluster). A database holding `--hours` (24) for
 * `--keys` (200; a list such as `200,2000` runs each size) keys x 5 instances (10-second
 * windows) plus probes from 2 locations every minute (`verdicts-seed.ts`: the last
 * `--recent-hours` (2) through the real store, the hours before written straight into the
 * rollup tables through `seed-sink.ts`, the same rows on both engines). Then, on two
 * collectors over that database, one with `verdicts.incremental` off (full recompute, the
 * fleet views in the read worker) and one with it on, p95 of `GET /api/verdicts` and
 * `GET /api/keys` for 15 m and 24 h windows (through fastify's inject, JSON included) and of
 * one alert evaluation pass, each round 15 s of traffic later (`verdicts-passes.ts`), for a
 * `live` fleet and a `quiet` one; CPU per alert pass; heap held by the kept analyses.
 * Targets: p95 < 100 ms (15 m), < 1 s (24 h); one evaluation pass < 200 ms (200 keys),
 * < 1 s (10,000 keys). One table at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { sqlOf } from '../support/sql.ts';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { benchEngines, loadLine, type BenchEngine } from './bench-engines.ts';
import { postgresSink, sqliteSink, type SeedSink } from './seed-sink.ts';
import type { FastifyInstance } from 'fastify';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { BENCH_DAY, seedDay, type DayShape } from './verdicts-seed.ts';
import { comparePasses, keptBytes, keptMinuteBytes, PASS_LABELS, type Column } from './verdicts-passes.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const arg = (name: string, fallback: string) => {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? fallback : argv[i + 1]!;
};

/** One table row: what was measured, p95s in `PASS_LABELS` order, CPU per pass. */
type Row = [string, Column];

/** Seeds the day on `engine` (PostgreSQL: a new database in `cluster`), then compares full and incremental reads. */
async function benchEngine(engine: BenchEngine, asked: DayShape, cluster?: PostgresCluster): Promise<Row[]> {
  // BENCH_DB: a database an earlier run kept (BENCH_KEEP_DB), read from where its traffic ended.
  const reuse = engine === 'sqlite' ? process.env.BENCH_DB : undefined;
  const prior = reuse ? endOf(reuse) : null;
  const shape = prior ? { ...asked, keys: prior.keys } : asked;
  const now = prior?.end ?? Date.now() - (Date.now() % MIN);
  const clock = manualClock(now);
  const dir = mkdtempSync(join(tmpdir(), 'bbx-verdicts-bench-'));
  const url = engine === 'postgres' ? await cluster!.createDatabase(`verdicts_${process.pid}_${shape.keys}`) : reuse ?? join(dir, 'bench.db');
  const name = `${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ${shape.keys.toLocaleString('en-US')}`;
  console.log(`\n--- ${name} keys x ${shape.instances}, ${shape.hours} h ---`);
  const config = loadConfig({ env: { BREAKERBOX_DB: url, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const app = await buildApp({ config, logger: false, clock });
  await app.ready();
  const token = (await app.storage.tokens.create(`bench-${process.pid}-${shape.keys}`, ['admin'])).secret;
  const db = engine === 'sqlite' ? sqliteSink(sqlOf(app)) : postgresSink(url);
  if (prior) console.log(`reusing ${reuse}: ${prior.keys} keys, traffic up to ${new Date(prior.end).toISOString()}`);
  else await seed(app, db, shape, now);


  const full = await buildApp({ config: { ...config, verdicts: { ...config.verdicts, incremental: false } }, logger: false, clock });
  await full.ready();
  const tally = new Map<string, number>();
  for (const v of (await app.verdicts.verdicts({ from: now - 15 * MIN, to: now }))) tally.set(`${v.verdict}${v.hint ? `/${v.hint}` : ''}`, (tally.get(`${v.verdict}${v.hint ? `/${v.hint}` : ''}`) ?? 0) + 1);
  console.log(`verdicts over 15 m: ${[...tally].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const minutes = await keptMinuteBytes(app, now);
  if (minutes) console.log(`kept rollup minutes (${minutes.minutes} minutes, ${minutes.rows.toLocaleString('en-US')} rows): ${(minutes.bytes / 1e6).toFixed(1)} MB = ${(minutes.bytes / shape.keys / 1000).toFixed(1)} MB per 1,000 keys`);
  const kept = await keptBytes(app, now);
  if (kept !== null) console.log(`kept analyses (15 m and 24 h, verdicts and all keys; the rollup minutes included): ${(kept / 1e6).toFixed(1)} MB, ${(kept / shape.keys / 1000).toFixed(0)} kB per key = ${(kept / shape.keys / 1000).toFixed(0)} MB per 1,000 keys`);
  const rounds = Number(arg('rounds', shape.keys >= 2000 ? '3' : '6'));
  const rows: Row[] = [];
  for (const fleet of ['live', 'quiet'] as const) {
    const [f, inc] = await comparePasses({ full, incremental: app }, token, clock, shape, fleet, rounds);
    const stats = app.verdicts.cacheStats();
    const kept = app.verdicts.keptMinutes();
    console.log(`${fleet}: ${rounds} rounds; incremental passes so far: ${stats ? `${stats.full} full, ${stats.partial} partial (last ${stats.lastDirty} keys judged again), ${stats.reused} judging none` : 'off (full every time)'}${kept ? `; ${kept.minutes} rollup minutes kept (main thread)` : ''}`);
    rows.push([`${name} ${fleet} full`, f], [`${name} ${fleet} incremental`, inc]);
    for (const [label, c] of rows.slice(-2)) console.log(`  ${label}: p95 ${PASS_LABELS.map((l, i) => `${l} ${c.p95[i]!.toFixed(1)}`).join(', ')} ms; CPU per alert pass ${c.cpuPerPassMs.toFixed(0)} ms`);
  }
  const firing = (await app.inject({ url: '/api/alerts?state=firing', headers: { authorization: `Bearer ${token}` } })).json().alerts.length;
  console.log(`alerts firing after the passes: ${firing}`);
  await db.close();
  await full.close();
  await app.close();
  if (reuse) console.log(`database ${reuse} kept (its traffic now runs to ${new Date(clock.now()).toISOString()})`);
  else if (process.env.BENCH_KEEP_DB && engine === 'sqlite') console.log(`database kept at ${join(dir, 'bench.db')}`);
  else rmSync(dir, { recursive: true, force: true });
  return rows;
}

/** Seeds the day and prints what was stored. */
async function seed(app: FastifyInstance, db: SeedSink, shape: DayShape, now: number) {
  const seeded = await seedDay(app, db, shape, now, (line) => console.log(line));
  const tWarm = performance.now();
  const built = await app.storage.rollups.warmHours(8 * 24 * HOUR, now);
  const warmMs = performance.now() - tWarm;
  const counts = new Map<string, number>();
  for (const t of ['key_minutes', 'key_minute_sources', 'probe_minutes', 'window_events', 'probe_events', 'transition_events']) counts.set(t, await db.count(t));
  const rowsOf = (t: string) => counts.get(t)!.toLocaleString('en-US');
  console.log(`seeded in ${((seeded.directMs + seeded.storeMs) / 1000).toFixed(1)} s: rollups direct ${(seeded.directMs / 1000).toFixed(1)} s, ` +
    `${seeded.events.toLocaleString('en-US')} events of the last ${shape.recentHours} h through the store ${(seeded.storeMs / 1000).toFixed(1)} s`);
  console.log(`rows: key_minutes ${rowsOf('key_minutes')}, key_minute_sources ${rowsOf('key_minute_sources')}, probe_minutes ${rowsOf('probe_minutes')}, ` +
    `window_events ${rowsOf('window_events')}, probe_events ${rowsOf('probe_events')}, transition_events ${rowsOf('transition_events')}`);
  console.log(`hourly aggregates: ${built.built} hours (of the 8 days the job covers) built after seeding in ${(warmMs / 1000).toFixed(1)} s, those the collector's background job had not built yet`);

}

/** Keys and the end of the traffic of a kept SQLite database. */
function endOf(path: string): { keys: number; end: number } {
  const db = openDatabase(path, { readonly: true });
  try {
    const keys = db.prepare('SELECT COUNT(*) FROM keys').pluck().get() as number;
    const end = db.prepare('SELECT MAX(minute) FROM key_minutes').pluck().get() as number;
    return { keys, end: end + MIN };
  } finally {
    db.close();
  }
}

const engines = benchEngines(process.argv.slice(2), 'SQLite by default; --engine postgres (or both) adds PostgreSQL, where the incremental collector hears of the traffic (written by the other collector) through the change log');
const sizes = arg('keys', '200').split(',').map(Number);
const table: Row[] = [];
let cluster: PostgresCluster | undefined;
try {
  for (const keys of sizes) {
    const shape: DayShape = { ...BENCH_DAY, keys, hours: Number(arg('hours', '24')), recentHours: Number(arg('recent-hours', '2')) };
    if (engines.includes('sqlite')) table.push(...(await benchEngine('sqlite', shape)));
    if (engines.includes('postgres')) {
      cluster ??= await startPostgresCluster({ durable: true });
      table.push(...(await benchEngine('postgres', shape, cluster)));
    }
  }
} finally {
  await cluster?.stop();
}
console.log(`\np95 in ms (load average ${loadLine()}; targets: 15m < 100, 24h < 1,000, alert pass < 200 at 200 keys and < 1,000 at 10,000)`);
console.log(`${''.padEnd(36)}${PASS_LABELS.map((l) => l.padStart(13)).join('')}  CPU/pass ms`);
for (const [label, c] of table) console.log(`${label.padEnd(36)}${c.p95.map((p) => p.toFixed(1).padStart(13)).join('')}${c.cpuPerPassMs.toFixed(0).padStart(13)}`);

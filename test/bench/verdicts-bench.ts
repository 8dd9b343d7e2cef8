/**
 * Verdicts and alerts benchmark (issues 5 and 13), on each storage engine
 * (`--engine sqlite|postgres|both`, default SQLite: seeding the day on PostgreSQL is on course for
 * well over 10 minutes on a loaded 2-core machine; PostgreSQL on a throwaway durable local cluster). A database holding 24 h for 200 keys x 5
 * instances (10-second windows) plus probes from 2 locations every minute, then p50/p95 of
 * `GET /api/verdicts` and `GET /api/keys` for 15 m and 24 h windows (through fastify's
 * inject, JSON included) and of one alert evaluation pass.
 *
 * Seeding: the last 2 hours go through the real store (`insertBatch`: raw rows, rollups,
 * triggers); the 22 hours before are written straight into the per-minute rollup tables
 * with the sums those windows would have produced (6 windows per minute), plus the raw
 * probes and transitions. Raw windows older than 2 h are not written: no read path of
 * this issue reads raw windows further back than 1 h.
 * The direct writes go through `seed-sink.ts` (same tables and columns on both engines).
 * Targets: p95 < 100 ms (15 m), < 1 s (24 h); one evaluation pass < 200 ms. One table at
 * the end: a row per engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import { DEFAULT_LATENCY_BOUNDS_MS, type BreakerKey, type TelemetryEvent } from '@breakerbox/protocol';
import { sqlOf } from '../support/sql.ts';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { benchEngines, loadLine, type BenchEngine } from './bench-engines.ts';
import { postgresSink, sqliteSink } from './seed-sink.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const KEYS = 200;
const INSTANCES = 5;
const SERVICES = 4;
const RECENT_HOURS = 2;
const LOCATIONS = ['eu-west', 'us-east'];
const OPERATIONS = 20;

const keys: BreakerKey[] = Array.from({ length: KEYS }, (_, i) => ({
  provider: ['openai', 'anthropic', 'together', 'mistral'][i % 4]!,
  endpoint: 'chat',
  model: `org/model-${i}:v${i % 3}@2025`,
  ...(i % 2 ? { region: ['us-east', 'eu-west'][i % 4 >> 1]! } : {}),
}));
/** Keys 0-9 flap on two instances, 10-19 are in an outage, 20-29 fail with auth: a realistic mix of verdicts. */
const kind = (k: number) => (k < 10 ? 'flapping' : k < 20 ? 'outage' : k < 30 ? 'auth' : 'healthy');
const serviceOf = (k: number) => `svc-${k % SERVICES}`;

function window(k: number, t: number): TelemetryEvent {
  const kd = kind(k);
  const errors = kd === 'outage' ? { server: 8 } : kd === 'auth' ? { auth: 6 } : { server: 1 };
  const failed = Object.values(errors).reduce((a, b) => a + b, 0);
  const counts = new Array<number>(DEFAULT_LATENCY_BOUNDS_MS.length + 1).fill(0);
  counts[3] = 12;
  counts[4] = 6;
  counts[6] = 2;
  return {
    type: 'window', start: t, end: t + 10_000, key: keys[k]!, calls: 20, ok: 20 - failed - 1, slow: 1, errors,
    rejected: 0, short_circuited: 0, retries: 1, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: [...DEFAULT_LATENCY_BOUNDS_MS], counts }, input_tokens: 2000, output_tokens: 400, cost_usd: 0.02,
  };
}
const probeOutcome = (k: number) => (kind(k) === 'outage' ? 'error' : 'ok') as 'ok' | 'error';

/** Seeds a day on `engine` (PostgreSQL: a new database in `cluster`), then times the reads; the p95s in `LABELS` order. */
async function benchEngine(engine: BenchEngine, cluster?: PostgresCluster): Promise<{ p95: number; ok: boolean }[]> {
  const now = Date.now() - (Date.now() % MIN);
  const start = now - 24 * HOUR;
  const recentStart = now - RECENT_HOURS * HOUR;
  const dir = mkdtempSync(join(tmpdir(), 'bbx-verdicts-bench-'));
  const url = engine === 'postgres' ? await cluster!.createDatabase(`verdicts_${process.pid}`) : join(dir, 'bench.db');
  console.log(`\n--- ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ---`);
  const config = loadConfig({ env: { BREAKERBOX_DB: url, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const app = await buildApp({ config, logger: false });
  await app.ready();
  const token = (await app.storage.tokens.create('bench', ['admin'])).secret;
  const db = engine === 'sqlite' ? sqliteSink(sqlOf(app)) : postgresSink(url);

  const t0 = performance.now();
  // Older hours, straight into the rollups: one key_minutes row per key (its service) and minute.
  const ids = {
    key: new Map<number, number>(),
    service: new Map<string, number>(),
    source: new Map<string, number>(),
  };
  const SOURCE = ['service_id', 'instance', 'sdk', 'first_seen', 'last_seen'];
  for (const [k, key] of keys.entries()) {
    ids.key.set(k, await db.insertId('keys', ['provider', 'endpoint', 'model', 'region', 'first_seen', 'last_seen'], [key.provider, key.endpoint, key.model, key.region ?? '', start, now]));
  }
  for (let s = 0; s < SERVICES; s++) {
    const sid = await db.insertId('services', ['name'], [`svc-${s}`]);
    ids.service.set(`svc-${s}`, sid);
    for (let i = 0; i < INSTANCES; i++) ids.source.set(`svc-${s}/pod-${i}`, await db.insertId('sources', SOURCE, [sid, `pod-${i}`, 'bench', start, now]));
  }
  for (const loc of LOCATIONS) {
    const sid = await db.insertId('services', ['name'], [`prober-${loc}`]);
    ids.source.set(`prober/${loc}`, await db.insertId('sources', SOURCE, [sid, loc, 'bench', start, now]));
  }

  /** Each table's columns, and the rows of one hour gathered before they are written in one transaction. */
  const tables = {
    key_minutes: ['minute', 'key_id', 'service_id', 'calls', 'ok', 'slow', 'e_server', 'e_auth', 'retries', 'input_tokens', 'output_tokens',
      'cost_usd', 'windows', 'transitions', 'opens', 'h3', 'h4', 'h6'],
    key_minute_sources: ['minute', 'key_id', 'source_id'],
    probe_minutes: ['minute', 'key_id', 'location', 'probes', 'ok', 'error', 'total_ms_sum', 'h4', 'h7'],
    probe_events: ['key_id', 'source_id', 'location', 'ts', 'outcome', 'error_class', 'status', 'connect_ms', 'ttfb_ms', 'total_ms', 'cold'],
    transition_events: ['key_id', 'source_id', 'ts', 'from_state', 'to_state', 'reason'],
    task_minutes: ['minute', 'operation', 'service_id', 'completed', 'failed', 'attempts', 'cost_usd', 'level0', 'level1', 'fallback_invoked', 'fallback_failed'],
  };
  type Table = keyof typeof tables;
  const pending = new Map<Table, unknown[][]>();
  const add = (t: Table, row: unknown[]) => void (pending.get(t) ?? pending.set(t, []).get(t)!).push(row);
  const flush = async () => {
    for (const [t, rows] of pending) await db.insertRows(t, tables[t], rows);
    pending.clear();
  };
  const km = { run: (...r: unknown[]) => add('key_minutes', r) };
  const kms = { run: (...r: unknown[]) => add('key_minute_sources', r) };
  const pm = { run: (minute: number, keyId: number, loc: string, ...r: unknown[]) => add('probe_minutes', [minute, keyId, loc, 1, ...r]) };
  const pe = { run: (...r: unknown[]) => add('probe_events', [...r.slice(0, 7), 20, 300, r[7], 0]) };
  const te = { run: (...r: unknown[]) => add('transition_events', r) };
  const tm = { run: (...r: unknown[]) => add('task_minutes', [...r, 30, 1, 33, 0.6, 29, 1, 2, 0]) };
  const instances = INSTANCES * 6;
  for (let m = start; m < now; m += HOUR) {
    {
      for (let minute = m; minute < Math.min(m + HOUR, now); minute += MIN) {
        const old = minute < recentStart;
        for (let k = 0; k < KEYS; k++) {
          const keyId = ids.key.get(k)!;
          if (old) {
            const kd = kind(k);
            const server = kd === 'outage' ? 8 : kd === 'auth' ? 0 : 1;
            const auth = kd === 'auth' ? 6 : 0;
            const cycle = kd === 'flapping' && minute % (10 * MIN) === 0;
            km.run(minute, keyId, ids.service.get(serviceOf(k)), 20 * instances, (19 - server - auth) * instances, instances, server * instances, auth * instances,
              instances, 2000 * instances, 400 * instances, 0.02 * instances, instances, cycle ? 4 : 0, cycle ? 2 : 0, 12 * instances, 6 * instances, 2 * instances);
            for (let i = 0; i < INSTANCES; i++) kms.run(minute, keyId, ids.source.get(`${serviceOf(k)}/pod-${i}`));
            if (cycle) {
              for (let i = 0; i < 2; i++) {
                const src = ids.source.get(`${serviceOf(k)}/pod-${i}`);
                te.run(keyId, src, minute, 'closed', 'open', 'error_rate');
                te.run(keyId, src, minute + 30_000, 'open', 'closed', 'probes_succeeded');
              }
            }
            for (const loc of LOCATIONS) {
              const ok = probeOutcome(k) === 'ok';
              pm.run(minute, keyId, loc, ok ? 1 : 0, ok ? 0 : 1, ok ? 400 : 3000, ok ? 1 : 0, ok ? 0 : 1);
            }
          }
          for (const loc of LOCATIONS) {
            if (old) {
              const ok = probeOutcome(k) === 'ok';
              pe.run(keyId, ids.source.get(`prober/${loc}`), loc, minute + 5_000, ok ? 'ok' : 'error', ok ? null : 'server', ok ? 200 : 503, ok ? 400 : 3000);
            }
          }
        }
        if (old) for (let op = 0; op < OPERATIONS; op++) tm.run(minute, `op-${op}`, ids.service.get(`svc-${op % SERVICES}`));
      }
    }
    await flush();
  }
  // Breakers were created before the day started.
  for (let k = 0; k < KEYS; k++) for (let i = 0; i < INSTANCES; i++) te.run(ids.key.get(k), ids.source.get(`${serviceOf(k)}/pod-${i}`), start - MIN, null, 'closed', 'created');
  await flush();
  const tDirect = performance.now();

  // The last 2 hours through the real store, one batch per instance per 5 minutes.
  let events = 0;
  for (let t = recentStart; t < now; t += 5 * MIN) {
    for (let s = 0; s < SERVICES; s++) {
      for (let i = 0; i < INSTANCES; i++) {
        const batch: TelemetryEvent[] = [];
        for (let k = s; k < KEYS; k += SERVICES) {
          for (let w = t; w < t + 5 * MIN && w < now; w += 10_000) batch.push(window(k, w));
          if (kind(k) === 'flapping' && i < 2) {
            for (let c = t; c < t + 5 * MIN; c += 10 * MIN) {
              batch.push({ type: 'transition', ts: c, key: keys[k]!, from: 'closed', to: 'open', reason: 'error_rate' });
              batch.push({ type: 'transition', ts: c + 30_000, key: keys[k]!, from: 'open', to: 'closed', reason: 'probes_succeeded' });
            }
          }
        }
        if (i === 0) {
          for (let op = s; op < OPERATIONS; op += SERVICES) {
            for (let m = t; m < t + 5 * MIN; m += MIN) {
              batch.push({ type: 'tasks', start: m, end: m + 10_000, operation: `op-${op}`, completed: 30, failed: 1, degraded: 0, attempts: 33, cost_usd: 0.6, levels: { '0': 29, '1': 1 }, fallback: { invoked: 2, failed: 0 } });
            }
          }
        }
        events += batch.length;
        await app.storage.telemetry.insertBatch({ batch_id: `seed-${t}-${s}-${i}`, source: { service: `svc-${s}`, instance: `pod-${i}`, sdk: 'bench' }, events: batch }, now);
      }
    }
    for (const loc of LOCATIONS) {
      const probes: TelemetryEvent[] = [];
      for (let k = 0; k < KEYS; k++) {
        for (let m = t; m < t + 5 * MIN; m += MIN) {
          const ok = probeOutcome(k) === 'ok';
          probes.push({ type: 'probe', ts: m + 5_000, key: keys[k]!, location: loc, outcome: ok ? 'ok' : 'error', ...(ok ? {} : { error_class: 'server' as const, status: 503 }), latency_ms: { connect: 20, ttfb: 300, total: ok ? 400 : 3000 } });
        }
      }
      events += probes.length;
      await app.storage.telemetry.insertBatch({ batch_id: `probe-${t}-${loc}`, source: { service: `prober-${loc}`, instance: loc, sdk: 'bench' }, events: probes }, now);
    }
  }
  const tStore = performance.now();
  const built = await app.storage.rollups.warmHours(8 * 24 * HOUR, Date.now());
  const tWarm = performance.now();
  const counts = new Map<string, number>();
  for (const t of ['key_minutes', 'key_minute_sources', 'probe_minutes', 'window_events', 'probe_events', 'transition_events']) counts.set(t, await db.count(t));
  const rows = (t: string) => counts.get(t)!;
  console.log(`seeded in ${((tStore - t0) / 1000).toFixed(1)} s: rollups direct ${((tDirect - t0) / 1000).toFixed(1)} s, ` +
    `${events.toLocaleString('en-US')} events of the last ${RECENT_HOURS} h through the store ${((tStore - tDirect) / 1000).toFixed(1)} s`);
  console.log(`rows: key_minutes ${rows('key_minutes').toLocaleString('en-US')}, key_minute_sources ${rows('key_minute_sources').toLocaleString('en-US')}, ` +
    `probe_minutes ${rows('probe_minutes').toLocaleString('en-US')}, window_events ${rows('window_events').toLocaleString('en-US')}, ` +
    `probe_events ${rows('probe_events').toLocaleString('en-US')}, transition_events ${rows('transition_events').toLocaleString('en-US')}`);
  console.log(`hourly aggregates built for ${built.built} hours in ${((tWarm - tStore) / 1000).toFixed(1)} s (background job; once per hour afterwards)`);

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
// Seeding the day on PostgreSQL (1.4M key_minute_sources rows, 770k events through the store) was on
// course for well over 10 minutes on the shared 2-core machine, past the few minutes a default run may take.
const engines = benchEngines(process.argv.slice(2), 'SQLite only by default; --engine postgres or both seeds the same day on PostgreSQL (well over 10 min on a loaded 2-core machine)');
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

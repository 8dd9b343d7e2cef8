/**
 * Ingest benchmark (issues 2 and 13), on each storage engine (`--engine sqlite|postgres|both`,
 * default both when PostgreSQL is installed) and for two collectors on one PostgreSQL. Per row:
 *  - the physical limit: the same window rows inserted straight into `window_events`, one
 *    transaction per 1,000 (`raw-inserters.ts`: better-sqlite3 at WAL + synchronous=FULL,
 *    or one multi-row INSERT through `pg` on a durable local cluster);
 *  - HTTP ingest: batches of 1,000 `window` events from 2 concurrent clients per collector
 *    against the real `breakerbox server` process(es) (raw rows + rollups + batch id);
 *  - their ratio (raw and HTTP alternate in slices, so machine load hits both alike), and per
 *    CPU second of the writer (SQLite only: PostgreSQL's own processes are not counted);
 *  - p50/p99 request latency at a steady 10,000 events/s (split over the collectors); the
 *    collectors' peak RSS.
 * Targets on a 2-core machine (SQLite): >= 100,000 events/s, >= 0.5 of raw (issue 13), p99 < 50 ms, RSS < 250 MB.
 * BENCH_SECONDS (per side), BENCH_ROUNDS, BENCH_STEADY_SECONDS, BENCH_CPU_PROF=<dir> tune it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { peakRssMb, startServer } from './bench-server.ts';
import { benchEngines, loadLine } from './bench-engines.ts';
import { postgresRawInserter, sqliteRawInserter, type RawInserter, type Slice } from './raw-inserters.ts';

/** CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux, USER_HZ = 100). */
const cpuSecondsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const BATCH = 1000;
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ADMIN = 'bench-admin-secret-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'bbx-bench-'));

const KEYS = Array.from({ length: 200 }, (_, i) => ({
  provider: ['openai', 'anthropic', 'together'][i % 3]!,
  endpoint: 'chat',
  model: `org/model-${i}:v1`,
  region: ['us-east', 'eu-west'][i % 2]!,
}));

/**
 * A batch as an SDK instance sends it after a short collector outage: every key's 10-second
 * windows for the last few intervals (200 keys x 5 intervals = 1,000 events).
 */
function windows(n: number, seed: number): WindowEvent[] {
  const now = Date.now() - (Date.now() % 10_000);
  return Array.from({ length: n }, (_, i) => {
    const end = now - (Math.floor(i / KEYS.length) + (seed % 6)) * 10_000;
    return {
      type: 'window', start: end - 10_000, end, key: KEYS[i % KEYS.length]!,
      calls: 50 + (i % 50), ok: 45, slow: 2, errors: { server: 2, rate_limit: 1 }, rejected: 0, short_circuited: 0,
      retries: 3, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
      latency_ms: { bounds: [100, 250, 500, 1000, 2500], counts: [5, 10, 20, 10, 4, 1] },
      ttft_ms: { bounds: [100, 250, 500], counts: [10, 20, 15, 5] },
      input_tokens: 4000, output_tokens: 1200, cost_usd: 0.012,
    };
  });
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

let seq = 0;
/** The batch minus its id, serialised once: clients only prepend a fresh `batch_id`. */
const bodyTail = (events: WindowEvent[], instance: string): string =>
  JSON.stringify({ source: { service: 'bench', instance }, events } satisfies Omit<TelemetryBatch, 'batch_id'>).slice(1);
const withId = (tail: string): string => `{"batch_id":"bench-${seq++}-${Math.random()}",${tail}`;

async function post(pool: Pool, payload: string): Promise<number> {
  const started = performance.now();
  const res = await pool.request({
    path: '/v1/telemetry', method: 'POST', body: payload,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`ingest answered ${res.statusCode}`);
  return performance.now() - started;
}


/** One row of the table. */
interface Row {
  label: string;
  raw: number;
  http: number;
  medianRatio: number;
  perCpu?: { raw: number; http: number };
  p50: number;
  p99: number;
  /** Events/s the steady phase got through (below 10,000 when the collectors cannot keep up, and then p99 is queueing). */
  steady: number;
  rssMb: number;
}

// Pre-serialise bodies so the clients' JSON work (same 2 cores) does not count against the server.
const tails = new Map<string, string[]>();
const fresh = (i: number, instance: string) => {
  let list = tails.get(instance);
  if (!list) tails.set(instance, (list = Array.from({ length: 6 }, (_, j) => bodyTail(windows(BATCH, j), instance))));
  return withId(list[i % list.length]!);
};

/** Runs the alternating raw / HTTP slices and the steady phase against `dbs.length` collectors, each on its `db`. */
async function measure(label: string, dbs: string[], raw: RawInserter): Promise<Row> {
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (read it in Chrome DevTools).
  const profDir = process.env.BENCH_CPU_PROF;
  const servers = await Promise.all(dbs.map((db) => startServer(dir, ADMIN, { db, nodeArgs: profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] })));
  const pools = servers.map((s) => new Pool(s.url, { connections: 4 }));
  try {
    for (const [n, pool] of pools.entries()) for (let i = 0; i < 10; i++) await post(pool, fresh(i, `warmup-${n}`));
    await raw.run(500);

    /** 2 concurrent clients per collector posting back to back for `ms`. */
    const httpSlice = async (ms: number): Promise<Slice> => {
      let sent = 0;
      const deadline = performance.now() + ms;
      const started = performance.now();
      const cpu = servers.reduce((a, s) => a + cpuSecondsOf(s.pid), 0);
      const client = async (pool: Pool, name: string) => {
        let i = 0;
        let next = fresh(i, name);
        while (performance.now() < deadline) {
          const pending = post(pool, next);
          next = fresh(++i, name); // serialise the next body while this one is in flight
          await pending;
          sent += BATCH;
        }
      };
      await Promise.all(pools.flatMap((pool, n) => [client(pool, `pod-${n}-1`), client(pool, `pod-${n}-2`)]));
      return { events: sent, seconds: (performance.now() - started) / 1000, cpu: servers.reduce((a, s) => a + cpuSecondsOf(s.pid), 0) - cpu };
    };

    console.log(`${label}: raw inserts and HTTP ingest (${2 * pools.length} clients, ${BATCH}-event batches), ${ROUNDS} slices of ${THROUGHPUT_SECONDS / ROUNDS} s each ...`);
    const sum = { raw: { events: 0, seconds: 0, cpu: 0 }, http: { events: 0, seconds: 0, cpu: 0 } };
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await raw.run((THROUGHPUT_SECONDS / ROUNDS) * 1000);
      const h = await httpSlice((THROUGHPUT_SECONDS / ROUNDS) * 1000);
      for (const [into, from] of [[sum.raw, r], [sum.http, h]] as const) {
        into.events += from.events;
        into.seconds += from.seconds;
        into.cpu += from.cpu;
      }
      ratios.push(h.events / h.seconds / (r.events / r.seconds));
      console.log(`  slice ${round + 1}: raw ${fmt(r.events / r.seconds)} events/s, HTTP ${fmt(h.events / h.seconds)} events/s, ratio ${ratios.at(-1)!.toFixed(2)}`);
    }

    console.log(`  steady 10,000 events/s (a ${BATCH}-event batch every 100 ms, round-robin over the collectors) for ${STEADY_SECONDS} s ...`);
    const latencies: number[] = [];
    const inflight: Promise<void>[] = [];
    const steadyStarted = performance.now();
    for (let i = 0; i < STEADY_SECONDS * 10; i++) {
      const tick = performance.now();
      inflight.push(post(pools[i % pools.length]!, fresh(i, `steady-${i % pools.length}`)).then((ms) => void latencies.push(ms)));
      const wait = 100 - (performance.now() - tick);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await Promise.all(inflight);
    const steady = (STEADY_SECONDS * 10 * BATCH) / ((performance.now() - steadyStarted) / 1000);
    latencies.sort((a, b) => a - b);
    return {
      label,
      raw: sum.raw.events / sum.raw.seconds,
      http: sum.http.events / sum.http.seconds,
      medianRatio: ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!,
      // Per CPU second of the writer: only meaningful where the writer is the process measured (SQLite).
      ...(dbs[0]!.startsWith('postgres') ? {} : { perCpu: { raw: sum.raw.events / sum.raw.cpu, http: sum.http.events / sum.http.cpu } }),
      p50: pct(latencies, 0.5),
      p99: pct(latencies, 0.99),
      steady,
      rssMb: Math.max(...servers.map((s) => peakRssMb(s.pid))),
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function main() {
  const engines = benchEngines();
  const batches = Array.from({ length: 20 }, (_, i) => windows(BATCH, i * 7));
  const rows: Row[] = [];
  let cluster: PostgresCluster | undefined;
  try {
    if (engines.includes('sqlite')) {
      const raw = sqliteRawInserter(dir, batches);
      try {
        rows.push(await measure('SQLite', [join(dir, 'http.db')], raw));
      } finally {
        await raw.close();
      }
    }
    if (engines.includes('postgres')) {
      cluster = await startPostgresCluster({ durable: true });
      const raw = await postgresRawInserter(await cluster.createDatabase('raw'), batches);
      try {
        rows.push(await measure('PostgreSQL', [cluster.url], raw));
        const shared = await cluster.createDatabase('shared');
        rows.push(await measure('PostgreSQL, 2 collectors', [shared, shared], raw));
      } finally {
        await raw.close();
      }
    }
  } finally {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nresults (load average ${loadLine()}; SQLite targets: HTTP >= 100,000 events/s, ratio >= 0.50, p99 < 50 ms, RSS < 250 MB)`);
  console.log('engine                      raw ev/s   HTTP ev/s   ratio  median slice  per CPU s (raw / HTTP, ratio)   p50 @10k   p99 @10k  steady got   peak RSS');
  for (const r of rows) {
    const cpu = r.perCpu ? `${fmt(r.perCpu.raw)} / ${fmt(r.perCpu.http)}, ${(r.perCpu.http / r.perCpu.raw).toFixed(2)}` : '-';
    console.log(`${r.label.padEnd(26)} ${fmt(r.raw).padStart(9)}  ${fmt(r.http).padStart(10)}  ${(r.http / r.raw).toFixed(2).padStart(6)}  ${r.medianRatio.toFixed(2).padStart(12)}  ` +
      `${cpu.padEnd(30)} ${r.p50.toFixed(1).padStart(7)} ms ${r.p99.toFixed(1).padStart(7)} ms ${fmt(r.steady).padStart(10)} ${r.rssMb.toFixed(0).padStart(6)} MB`);
  }
}

await main();

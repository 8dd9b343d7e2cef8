/**
 * Ingest benchmark (issue 2). Prints:
 *  - the physical limit: the same window rows inserted straight through better-sqlite3,
 *    one transaction per 1,000, on the same kind of file (WAL, synchronous=FULL);
 *  - HTTP ingest: batches of 1,000 `window` events from 2 concurrent clients against the
 *    real `breakerbox server` process (raw rows + rollups + idempotency record per batch);
 *  - their ratio (raw and HTTP alternate in slices, so machine load hits both alike; the
 *    per-slice ratios are printed too), and the same per CPU second of the writer (bench
 *    process for raw, server process for HTTP), which load on a shared machine moves less; p50/p99 request latency at a steady 10,000 events/s;
 *    the server's peak RSS.
 * Targets on a 2-core machine: >= 100,000 events/s, >= 0.5 of raw (issue 13), p99 < 50 ms, RSS < 250 MB.
 * BENCH_SECONDS (per side), BENCH_ROUNDS, BENCH_STEADY_SECONDS, BENCH_CPU_PROF=<dir> tune it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { openDatabase } from '../../server/storage/database.ts';
import { applyMigrations } from '../../server/storage/migrations.ts';
import type { TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { peakRssMb, startServer } from './bench-server.ts';

/** CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux, USER_HZ = 100). */
const cpuSecondsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
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

/** Events done in a slice, its wall time and the CPU time the writer spent on them. */
interface Slice {
  events: number;
  seconds: number;
  cpu: number;
}

/**
 * The physical limit: raw inserts of the same rows, one transaction per 1,000, on a file
 * opened and migrated like the collector's. Runs in slices between the HTTP slices, so both
 * rates see the same machine load (this benchmark shares 2 cores with everything else).
 */
function createRawInserter(): { run(ms: number): Slice; close(): void } {
  const db = openDatabase(join(dir, 'raw.db'));
  applyMigrations(db);
  const insert = db.prepare(`INSERT INTO window_events (key_id, source_id, start, end, calls, ok, slow, errors, rejected,
    short_circuited, retries, cold_excluded, half_open_ok, half_open_failed, latency, ttft, input_tokens, output_tokens, cost_usd)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const tx = db.transaction((rows: WindowEvent[]) => {
    for (const e of rows) {
      insert.run(1 + (e.calls % 200), 1, e.start, e.end, e.calls, e.ok, e.slow, JSON.stringify(e.errors), e.rejected,
        e.short_circuited, e.retries, e.cold_excluded, e.half_open.ok, e.half_open.failed,
        JSON.stringify(e.latency_ms), JSON.stringify(e.ttft_ms), e.input_tokens, e.output_tokens, e.cost_usd);
    }
  });
  const batches = Array.from({ length: 20 }, (_, i) => windows(BATCH, i * 7));
  let n = 0;
  return {
    run(ms) {
      let done = 0;
      const started = performance.now();
      const cpu = ownCpuSeconds();
      while (performance.now() - started < ms) {
        tx(batches[n++ % batches.length]!);
        done++;
      }
      return { events: done * BATCH, seconds: (performance.now() - started) / 1000, cpu: ownCpuSeconds() - cpu };
    },
    close: () => db.close(),
  };
}

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

async function main() {
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (read it in Chrome DevTools).
  const profDir = process.env.BENCH_CPU_PROF;
  const server = await startServer(dir, ADMIN, { nodeArgs: profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] });
  const pool = new Pool(server.url, { connections: 4 });
  const raw = createRawInserter();
  // Pre-serialise bodies so the clients' JSON work (same 2 cores) does not count against the server.
  const tails = new Map<string, string[]>();
  const fresh = (i: number, instance: string) => {
    let list = tails.get(instance);
    if (!list) tails.set(instance, (list = Array.from({ length: 6 }, (_, j) => bodyTail(windows(BATCH, j), instance))));
    return withId(list[i % list.length]!);
  };

  for (let i = 0; i < 10; i++) await post(pool, fresh(i, 'warmup'));
  raw.run(500);

  /** 2 concurrent clients posting back to back for `ms`. */
  const httpSlice = async (ms: number) => {
    let sent = 0;
    const deadline = performance.now() + ms;
    const started = performance.now();
    const cpu = cpuSecondsOf(server.pid);
    const client = async (name: string) => {
      let i = 0;
      let next = fresh(i, name);
      while (performance.now() < deadline) {
        const pending = post(pool, next);
        next = fresh(++i, name); // serialise the next body while this one is in flight
        await pending;
        sent += BATCH;
      }
    };
    await Promise.all([client('pod-1'), client('pod-2')]);
    return { events: sent, seconds: (performance.now() - started) / 1000, cpu: cpuSecondsOf(server.pid) - cpu };
  };

  console.log(`raw better-sqlite3 inserts (1 transaction per ${BATCH} rows) and HTTP ingest (2 concurrent clients, ${BATCH}-event batches),`);
  console.log(`  alternating in ${ROUNDS} slices of ${THROUGHPUT_SECONDS / ROUNDS} s each ...`);
  const sum = { raw: { events: 0, seconds: 0, cpu: 0 }, http: { events: 0, seconds: 0, cpu: 0 } };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const r = raw.run((THROUGHPUT_SECONDS / ROUNDS) * 1000);
    const h = await httpSlice((THROUGHPUT_SECONDS / ROUNDS) * 1000);
    for (const [into, from] of [[sum.raw, r], [sum.http, h]] as const) {
      into.events += from.events;
      into.seconds += from.seconds;
      into.cpu += from.cpu;
    }
    ratios.push(h.events / h.seconds / (r.events / r.seconds));
    console.log(`  slice ${round + 1}: raw ${fmt(r.events / r.seconds)} events/s, HTTP ${fmt(h.events / h.seconds)} events/s, ratio ${ratios.at(-1)!.toFixed(2)}`);
  }
  raw.close();
  const rawRate = sum.raw.events / sum.raw.seconds;
  const http = sum.http.events / sum.http.seconds;
  // Per CPU second rather than per wall second: what each event costs the writer, whatever else runs on the machine.
  const rawPerCpu = sum.raw.events / sum.raw.cpu;
  const httpPerCpu = sum.http.events / sum.http.cpu;

  console.log(`steady 10,000 events/s (${BATCH}-event batch every 100 ms) for ${STEADY_SECONDS} s ...`);
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < STEADY_SECONDS * 10; i++) {
    const tick = performance.now();
    const payload = fresh(i, 'steady');
    inflight.push(post(pool, payload).then((ms) => void latencies.push(ms)));
    const wait = 100 - (performance.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inflight);
  latencies.sort((a, b) => a - b);
  const rss = peakRssMb(server.pid);
  await pool.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });

  const ratio = http / rawRate;
  const medianRatio = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  console.log('\nresults (targets in brackets)');
  console.log(`  raw better-sqlite3        ${fmt(rawRate).padStart(10)} events/s`);
  console.log(`  HTTP ingest               ${fmt(http).padStart(10)} events/s   [>= 100,000] ${http >= 100_000 ? 'met' : 'MISSED'}`);
  console.log(`  ratio HTTP / raw          ${ratio.toFixed(2).padStart(10)}            [>= 0.50] ${ratio >= 0.5 ? 'met' : 'MISSED'}`);
  console.log(`  ratio, median of slices   ${medianRatio.toFixed(2).padStart(10)}`);
  console.log(`  per CPU second: raw ${fmt(rawPerCpu)}, HTTP server ${fmt(httpPerCpu)} events, ratio ${(httpPerCpu / rawPerCpu).toFixed(2)}`);
  console.log(`  latency @10k ev/s p50     ${pct(latencies, 0.5).toFixed(1).padStart(10)} ms`);
  console.log(`  latency @10k ev/s p99     ${pct(latencies, 0.99).toFixed(1).padStart(10)} ms         [< 50] ${pct(latencies, 0.99) < 50 ? 'met' : 'MISSED'}`);
  console.log(`  server peak RSS           ${rss.toFixed(0).padStart(10)} MB         [< 250] ${rss < 250 ? 'met' : 'MISSED'}`);
}

await main();

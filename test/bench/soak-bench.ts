/**
 * Soak: the collector under a steady SDK-shaped load for a long time, plus the dashboard's
 * polling. 250 instances each push one batch every 10 s (one `window` per key for 400
 * shared keys, a `tasks` event, now and then a breaker `transition`), staggered so about
 * 25 batches a second arrive: 10,000 events/s. Two dashboards poll the board
 * (`/api/keys`, `/api/verdicts`, `/api/alerts?state=firing`) like the real one: each 10 s
 * after its previous answer.
 *
 * Prints RSS every 10 s, split by where it is (V8 heaps, malloc, other, files: see
 * rss-breakdown.ts) with the WAL file's size, so growth can be placed, and ingest /
 * dashboard p50 and p99 per minute, then whether RSS levelled off. `--minutes N` (or
 * `SOAK_SECONDS`, default 10 minutes) shortens it; `SOAK_EVENTS_PER_S` (default 10000)
 * changes the rate; `--heap` adds the main thread's V8 heap from `/metrics`.
 * `SOAK_HEAPSNAPSHOT=dir` writes two server heap snapshots there (after the first minute
 * and near the end) to diff by constructor (`test/bench/heap-diff.ts`); `SOAK_NODE_ARGS` adds
 * server Node flags and `SOAK_CONFIG_YAML` config sections (`\n` for newlines), for experiments.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { startServer } from './bench-server.ts';
import { rssBreakdown } from './rss-breakdown.ts';

const minutesArg = process.argv.indexOf('--minutes');
const SECONDS = minutesArg > 0 ? Math.round(Number(process.argv[minutesArg + 1]) * 60) : Number(process.env.SOAK_SECONDS ?? 600);
if (!(SECONDS > 0)) throw new Error('--minutes takes a positive number');
const SNAPSHOTS = process.env.SOAK_HEAPSNAPSHOT;
/** `--heap`: also scrape the main thread's V8 heap from `/metrics` every 10 s (adds a scrape's load). */
const SCRAPE_HEAP = process.argv.includes('--heap');
const RATE = Number(process.env.SOAK_EVENTS_PER_S ?? 10_000);
const KEYS = 400;
const INTERVAL_S = 10;
const INSTANCES = Math.max(1, Math.round((RATE * INTERVAL_S) / (KEYS + 1)));
const ADMIN = 'soak-admin-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'bbx-soak-'));

const keys: BreakerKey[] = Array.from({ length: KEYS }, (_, i) => ({
  provider: ['openai', 'anthropic', 'together', 'azure'][i % 4]!,
  endpoint: 'chat',
  model: `org/model-${Math.floor(i / 4)}:v1@2025-01-01`,
  ...(i % 3 === 0 ? { region: ['us-east', 'eu-west'][i % 2]! } : {}),
}));
const BOUNDS = [50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** One instance's batch for the interval ending now, as the SDK reporter would send it. */
function batchOf(instance: number, seq: number, now: number): string {
  const start = now - INTERVAL_S * 1000;
  const events: TelemetryEvent[] = keys.map((key, k) => {
    const calls = 20 + ((instance + k + seq) % 30);
    const server = (k + seq) % 17 === 0 ? 3 : 0;
    const slow = (k + instance) % 11 === 0 ? 1 : 0;
    const counts = new Array<number>(BOUNDS.length + 1).fill(0);
    counts[2] = calls - 4;
    counts[3] = 3;
    counts[5] = 1;
    return {
      type: 'window', start, end: now, key, calls, ok: calls - server - slow, slow, errors: server ? { server } : {},
      rejected: 0, short_circuited: 0, retries: server, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
      latency_ms: { bounds: BOUNDS, counts }, input_tokens: calls * 300, output_tokens: calls * 50, cost_usd: calls * 0.0003,
    };
  });
  events.push({
    type: 'tasks', start, end: now, operation: `op-${instance % 5}`, completed: 30, failed: 1, degraded: 0, attempts: 33,
    cost_usd: 0.4, levels: { '0': 29, '1': 1 }, fallback: { invoked: 2, failed: 0 },
  });
  if (seq % 6 === instance % 6) {
    const key = keys[(instance * 7 + seq) % KEYS]!;
    events.push({ type: 'transition', ts: now - 500, key, from: 'closed', to: 'open', reason: 'error_rate', cooldown_ms: 30_000, attempt: 1 });
    events.push({ type: 'transition', ts: now - 100, key, from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
  }
  return JSON.stringify({ batch_id: `soak-${instance}-${seq}`, source: { service: `svc-${instance % 10}`, instance: `pod-${instance}`, sdk: 'breakerbox-js/0.1.0' }, events });
}

const startSoakServer = () => startServer(dir, ADMIN, {
  nodeArgs: [
    ...(process.env.SOAK_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/hw/prof'] : []),
    ...(SNAPSHOTS ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOTS}`] : []),
    ...(process.env.SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ],
  extraConfig: process.env.SOAK_CONFIG_YAML?.replaceAll('\\n', '\n'),
});

/** The main thread's V8 heap in use and committed and its external (off-heap) memory, in MB, from `/metrics`. */
async function heapMb(pool: Pool): Promise<{ heap: number; committed: number; external: number; ms: number }> {
  const started = performance.now();
  const res = await pool.request({ path: '/metrics', method: 'GET', headers: { authorization: `Bearer ${ADMIN}` } });
  const text = await res.body.text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return { heap: read('nodejs_heap_size_used_bytes'), committed: read('nodejs_heap_size_total_bytes'), external: read('nodejs_external_memory_bytes'), ms: performance.now() - started };
}
const walMb = () => {
  try {
    return statSync(join(dir, 'http.db-wal')).size / 2 ** 20;
  } catch {
    return 0;
  }
};

/** CPU seconds the process has used (user + system; Linux clock ticks are 1/100 s). */
const cpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const pct = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const f1 = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(1));

async function timed(pool: Pool, path: string, body?: string): Promise<number> {
  const started = performance.now();
  const res = await pool.request({
    path, method: body ? 'POST' : 'GET', body,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
  return performance.now() - started;
}

async function main() {
  console.log(`soak: ${SECONDS} s, ${INSTANCES} instances x ${KEYS} keys every ${INTERVAL_S} s = ${Math.round((INSTANCES * (KEYS + 1)) / INTERVAL_S).toLocaleString('en-US')} events/s, 2 dashboards polling every 10 s`);
  const server = await startSoakServer();
  const ingest = new Pool(server.url, { connections: 8 });
  const dashboard = new Pool(server.url, { connections: 6 });
  const scrape = new Pool(server.url, { connections: 1 });
  const minutes: { ingest: number[]; board: number[] }[] = [];
  const bucket = (t0: number) => (minutes[Math.floor((performance.now() - t0) / 60_000)] ??= { ingest: [], board: [] });
  const rss: { t: number; mb: number }[] = [];
  let failures = 0;
  let sent = 0;

  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inflight.add(p);
    p.finally(() => inflight.delete(p));
  };
  const sampler = setInterval(() => {
    const mb = rssMb(server.pid);
    const t = Math.round((performance.now() - t0) / 1000);
    rss.push({ t, mb });
    const b = rssBreakdown(server.pid);
    const line = `  t=${String(t).padStart(4)} s  RSS ${mb.toFixed(0).padStart(4)} MB = V8 ${b.v8.toFixed(0).padStart(3)} + malloc ${b.malloc.toFixed(0).padStart(3)} (${b.arenas} arenas) + other ${b.otherAnon.toFixed(0).padStart(2)} + files ${b.file.toFixed(0)}  WAL ${walMb().toFixed(0).padStart(3)} MB  events stored ${sent.toLocaleString('en-US')}`;
    if (!SCRAPE_HEAP) return console.log(line);
    heapMb(scrape).then(({ heap, committed, external, ms }) => {
      console.log(`${line}  main heap ${heap.toFixed(0)} of ${committed.toFixed(0)} MB, external ${external.toFixed(0)} MB (/metrics ${ms.toFixed(0)} ms)`);
    }, () => void failures++);
  }, 10_000);
  if (SNAPSHOTS) {
    for (const at of [60, SECONDS - 15]) setTimeout(() => process.kill(server.pid, 'SIGUSR2'), at * 1000).unref();
  }
  // Like the dashboard's usePoll: each view polls its path, then waits 10 s after the answer,
  // so a slow answer delays the next poll instead of piling requests up behind it.
  for (let d = 0; d < 2; d++) {
    for (const path of ['/api/keys?window=15m', '/api/verdicts?window=15m', '/api/alerts?state=firing']) {
      track((async () => {
        while (performance.now() < end) {
          await timed(dashboard, path).then((ms) => void bucket(t0).board.push(ms), () => void failures++);
          await new Promise((r) => setTimeout(r, Math.min(10_000, Math.max(0, end - performance.now()))));
        }
      })());
    }
  }

  // Each tick sends the batches due in it, so the instances stay staggered over the interval.
  const tickMs = 100;
  const perTick = (INSTANCES * tickMs) / (INTERVAL_S * 1000);
  let owed = 0;
  let next = 0;
  const seqs = new Array<number>(INSTANCES).fill(0);
  const busy = new Array<boolean>(INSTANCES).fill(false);
  let behind = 0;
  while (performance.now() < end) {
    const tick = performance.now();
    owed += perTick;
    for (; owed >= 1; owed--) {
      const instance = next;
      next = (next + 1) % INSTANCES;
      // Like the SDK reporter, an instance has one batch in flight; a turn that finds it still
      // waiting is counted as behind (the SDK would send it merged into the next batch).
      if (busy[instance]) {
        behind++;
        continue;
      }
      busy[instance] = true;
      const body = batchOf(instance, seqs[instance]!++, Date.now());
      track(timed(ingest, '/v1/telemetry', body).then((ms) => {
        bucket(t0).ingest.push(ms);
        sent += KEYS + 1;
      }, () => void failures++).finally(() => {
        busy[instance] = false;
      }));
    }
    const wait = tickMs - (performance.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  clearInterval(sampler);
  await Promise.all(inflight);
  const finalRss = rssMb(server.pid);
  const cpu = cpuSeconds(server.pid);
  await ingest.close();
  await dashboard.close();
  await scrape.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });

  console.log('\nper minute (ms)            ingest p50   p99   n      dashboard p50   p99   n');
  minutes.forEach((m, i) => {
    if (!m) return;
    console.log(`  minute ${String(i + 1).padStart(2)}                ${f1(pct(m.ingest, 0.5)).padStart(6)} ${f1(pct(m.ingest, 0.99)).padStart(6)} ${String(m.ingest.length).padStart(5)}   ${f1(pct(m.board, 0.5)).padStart(10)} ${f1(pct(m.board, 0.99)).padStart(6)} ${String(m.board.length).padStart(4)}`);
  });
  // Levelled: the last third of the run grew by less than 5% of its RSS.
  const tail = rss.slice(Math.floor((rss.length * 2) / 3));
  const growth = tail.length > 1 ? tail.at(-1)!.mb - tail[0]!.mb : NaN;
  const peak = Math.max(...rss.map((r) => r.mb));
  console.log(`\n  RSS first ${rss[0]?.mb.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, final ${finalRss.toFixed(0)} MB; last third of the run ${growth >= 0 ? '+' : ''}${f1(growth)} MB`);
  console.log(`  RSS ${Math.abs(growth) < 0.05 * finalRss ? 'levelled off' : 'still moving'} (level = last third within 5% of final)`);
  console.log(`  server CPU ${cpu.toFixed(0)} s (${(cpu / (sent / 1e6)).toFixed(1)} s per million events stored)`);
  console.log(`  events stored ${sent.toLocaleString('en-US')} (${Math.round(sent / SECONDS).toLocaleString('en-US')}/s of ${Math.round((INSTANCES * (KEYS + 1)) / INTERVAL_S).toLocaleString('en-US')}/s offered), turns an instance was still waiting for its last batch ${behind}, failed requests ${failures}`);
}

await main();

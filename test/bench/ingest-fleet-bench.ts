/**
 * Ingest while the leader's alert passes judge a large fleet (issue 38): `npm run bench -- ingest`
 * runs it after `ingest-bench.ts`. The real `breakerbox server` process on a fresh SQLite file,
 * alerts on at their default interval (15 s). A warm-up sends one window for each of
 * `BENCH_FLEET_KEYS` (10,000) keys from each of 10 instances; then a steady 10,000 events/s
 * for `BENCH_FLEET_SECONDS` (60): a 1,000-window batch every 100 ms, each instance in turn sending
 * its 10-second window of every key (every key dirty every pass: a live fleet). It prints the
 * request latency percentiles of the steady phase, the alert passes that ran inside it (from the
 * collector's own `breakerbox_alert_evaluation_duration_seconds`), the collector's CPU and peak RSS.
 * The fleet has no probes: the passes judge client traffic only (the probe rules find nothing).
 * Target (issue 38): p99 < 50 ms at 10,000 events/s while alert passes over 10,000 keys run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { peakRssMb, startServer } from './bench-server.ts';
import { loadLine } from './bench-engines.ts';

const KEYS = Number(process.env.BENCH_FLEET_KEYS ?? 10_000);
const SECONDS = Number(process.env.BENCH_FLEET_SECONDS ?? 60);
const INSTANCES = 10;
const BATCH = 1000;
const ADMIN = 'bench-admin-secret-0123456789abcdef';

const keyOf = (i: number) => ({ provider: ['openai', 'anthropic', 'together'][i % 3]!, endpoint: 'chat', model: `org/model-${i}:v1`, region: ['us-east', 'eu-west'][i % 2]! });
const KEY_LIST = Array.from({ length: KEYS }, (_, i) => keyOf(i));

/** Batch `j` of the stream: 1,000 consecutive keys' windows ending `end`, from instance `j / (KEYS / BATCH)` in turn. */
function batch(j: number, end: number): string {
  const perRound = Math.ceil(KEYS / BATCH);
  const instance = `pod-${Math.floor(j / perRound) % INSTANCES}`;
  const events: WindowEvent[] = [];
  for (let n = 0; n < BATCH; n++) {
    const i = ((j % perRound) * BATCH + n) % KEYS;
    // One key in fifty fails a quarter of its calls: some verdicts are not healthy, as in a fleet.
    const bad = i % 50 === 0;
    events.push({
      type: 'window', start: end - 10_000, end, key: KEY_LIST[i]!,
      calls: 40, ok: bad ? 29 : 38, slow: 1, errors: bad ? { server: 10 } : { rate_limit: 1 }, rejected: 0, short_circuited: 0,
      retries: 1, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
      latency_ms: { bounds: [100, 250, 500, 1000, 2500], counts: [5, 10, 15, 6, 3, 1] },
      input_tokens: 3000, output_tokens: 900, cost_usd: 0.009,
    });
  }
  return JSON.stringify({ batch_id: `fleet-${j}-${end}`, source: { service: 'bench', instance }, events } satisfies TelemetryBatch);
}

async function post(pool: Pool, body: string): Promise<number> {
  const started = performance.now();
  const res = await pool.request({ path: '/v1/telemetry', method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`ingest answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

/** The alert pass histogram's count, sum and bucket counts from the collector's `/metrics`. */
async function passes(pool: Pool): Promise<{ count: number; sum: number; buckets: Map<string, number> }> {
  const res = await pool.request({ path: '/metrics', method: 'GET', headers: { authorization: `Bearer ${ADMIN}` } });
  const text = await res.body.text();
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const buckets = new Map<string, number>();
  for (const m of text.matchAll(/^breakerbox_alert_evaluation_duration_seconds_bucket\{le="([^"]+)"\} (\S+)$/gm)) buckets.set(m[1]!, Number(m[2]));
  return {
    count: value(/^breakerbox_alert_evaluation_duration_seconds_count (\S+)$/m),
    sum: value(/^breakerbox_alert_evaluation_duration_seconds_sum (\S+)$/m),
    buckets,
  };
}

const cpuSecondsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const dir = mkdtempSync(join(tmpdir(), 'bbx-fleet-'));
// A fleet this size is one token's: its key caps lifted (a gateway's token reports every key).
const server = await startServer(dir, ADMIN, {
  ingestConfig: `  keys:\n    new_per_minute_per_token: ${KEYS * 2}\n    new_per_minute_per_source: ${KEYS * 2}\n    live_per_token: ${KEYS * 2}\n    live_per_source: ${KEYS * 2}\n`,
});
const pool = new Pool(server.url, { connections: 8 });
try {
  console.log(`SQLite, ${KEYS.toLocaleString('en-US')} keys x ${INSTANCES} instances, alert passes every 15 s; load average ${loadLine()}`);
  const tenSeconds = () => Date.now() - (Date.now() % 10_000);
  const perRound = Math.ceil(KEYS / BATCH);
  for (let j = 0; j < perRound * INSTANCES; j++) await post(pool, batch(j, tenSeconds()));
  // The first pass over the whole fleet before the steady phase: every pass measured judges every key.
  const firstPass = Date.now();
  while ((await passes(pool)).count < 1 && Date.now() - firstPass < 60_000) await new Promise((r) => setTimeout(r, 500));
  const before = await passes(pool);
  const cpu = cpuSecondsOf(server.pid);
  console.log(`  steady 10,000 events/s for ${SECONDS} s ...`);
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < SECONDS * 10; i++) {
    const tick = performance.now();
    inflight.push(post(pool, batch(i, tenSeconds())).then((ms) => void latencies.push(ms)));
    const wait = 100 - (performance.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - started) / 1000;
  const after = await passes(pool);
  latencies.sort((a, b) => a - b);
  const n = after.count - before.count;
  // The slowest pass's bucket: the smallest bound whose count grew by every pass of the phase.
  const bound = [...after.buckets].find(([le, c]) => c - (before.buckets.get(le) ?? 0) >= n)?.[0] ?? '?';
  console.log(`  got ${Math.round((SECONDS * 10 * BATCH) / seconds).toLocaleString('en-US')} events/s; latency p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms (target p99 < 50 ms)`);
  console.log(`  alert passes during it: ${n}, mean ${n > 0 ? (((after.sum - before.sum) / n) * 1000).toFixed(0) : '-'} ms, slowest <= ${bound} s; collector CPU ${((cpuSecondsOf(server.pid) - cpu) / seconds * 100).toFixed(0)} % of a core; peak RSS ${peakRssMb(server.pid).toFixed(0)} MB; load average ${loadLine()}`);
} finally {
  await pool.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

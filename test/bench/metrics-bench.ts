/**
 * `/metrics` benchmark (issue 11): a fleet of 1,000, 10,000 and 50,000 keys, each with
 * traffic in the last minutes (so the state gauges are computed for every key too), scraped
 * over real HTTP on loopback by a client in another process: time to first byte, total
 * time, bytes, series, the collector process's peak RSS and its event loop's longest stall
 * during the scrape. 50,000 keys run twice: under the default `metrics.max_series` and with
 * the cap lifted. Each fleet is scraped twice: first with nothing judged yet (the scrape runs
 * the verdict engine over every key for the state gauges), then again at once, when the states
 * judged for the first scrape are fresh (within one `alerts.interval_s`, as after the
 * leader's alert pass) and are shown with their age instead (docs/metrics.md).
 *
 * Peer, in the same process: prom-client (the library the collector's own health uses)
 * rendering one counter with as many label sets as the page's per-key series (at most
 * 500,000: it holds them all in memory), i.e. what the standard client costs for that page.
 *
 * `METRICS_BENCH_KEYS=1000,10000` picks the fleet sizes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Registry } from 'prom-client';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import { DEFAULT_LATENCY_BOUNDS_MS, type BreakerKey, type TelemetryEvent } from '@breakerbox/protocol';
import { sqlOf } from '../support/sql.ts';

const MIN = 60_000;
const SIZES = (process.env.METRICS_BENCH_KEYS ?? '1000,10000,50000').split(',').map(Number);
const SERVICES = 4;

interface Scrape {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  rssPeakMb: number;
  /** Longest the collector's event loop was blocked during the scrape. */
  loopMaxMs: number;
  series: number;
  droppedKeys: number;
  stateAgeS: number;
}

/** The scraping client runs in its own process: in this one it would wait on the collector's synchronous work. */
const CLIENT = `
const http = require('node:http');
const [url, token] = process.argv.slice(1);
const t0 = performance.now();
let ttfb = 0, bytes = 0, tail = '';
http.get(url + '/metrics', { headers: { authorization: 'Bearer ' + token } }, (res) => {
  if (res.statusCode !== 200) { console.error('status ' + res.statusCode); process.exit(1); }
  res.on('data', (c) => { if (!ttfb) ttfb = performance.now() - t0; bytes += c.length; tail = (tail + c.toString('utf8')).slice(-2000); });
  res.on('end', () => console.log(JSON.stringify({ ttfb, total: performance.now() - t0, bytes, tail })));
  res.on('aborted', () => { console.error('response aborted after ' + bytes + ' bytes'); process.exit(1); });
}).on('error', (e) => { console.error(e.message); process.exit(1); });`;

/** Peak RSS of this process since the last reset (Linux: VmHWM, reset through clear_refs). */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the peak then covers the seeding too.
  }
}
function peakRssMb(): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
  } catch {
    return process.resourceUsage().maxRSS / 1024;
  }
}

async function scrape(url: string, token: string): Promise<Scrape> {
  resetPeakRss();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const child = spawn(process.execPath, ['-e', CLIENT, url, token], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  loop.disable();
  if (code !== 0) throw new Error(`scrape client exited with ${code}`);
  const r = JSON.parse(out) as { ttfb: number; total: number; bytes: number; tail: string };
  const figure = (name: string) => Number(new RegExp(`^${name} ([\\d.]+)$`, 'm').exec(r.tail)?.[1] ?? NaN);
  return {
    ttfbMs: r.ttfb,
    totalMs: r.total,
    bytes: r.bytes,
    rssPeakMb: peakRssMb(),
    loopMaxMs: loop.max / 1e6,
    series: figure('breakerbox_metrics_series'),
    droppedKeys: figure('breakerbox_metrics_dropped_keys'),
    stateAgeS: figure('breakerbox_metrics_state_age_seconds'),
  };
}

function keyOf(i: number): BreakerKey {
  return {
    provider: ['openai', 'anthropic', 'together', 'mistral'][i % 4]!,
    endpoint: i % 5 === 0 ? 'embeddings' : 'chat',
    model: `org/model-${i}:v${i % 3}@2025`,
    ...(i % 2 ? { region: ['us-east', 'eu-west'][(i >> 1) % 2]! } : {}),
  };
}

/** Three minutes of one window a minute per key from one of four services; 10 % of keys with errors, 5 % probed. */
async function seed(app: Awaited<ReturnType<typeof buildApp>>, keys: number, now: number): Promise<void> {
  const counts = new Array<number>(DEFAULT_LATENCY_BOUNDS_MS.length + 1).fill(0);
  counts[3] = 12;
  counts[4] = 6;
  counts[6] = 2;
  let batch = 0;
  for (let s = 0; s < SERVICES; s++) {
    let events: TelemetryEvent[] = [];
    const flush = async () => {
      if (events.length === 0) return;
      await app.storage.telemetry.insertBatch({ batch_id: `seed-${batch++}`, source: { service: `svc-${s}`, instance: 'pod-0' }, events }, now);
      events = [];
    };
    for (let i = s; i < keys; i += SERVICES) {
      const key = keyOf(i);
      const errors = i % 10 === 0 ? { server: 3, timeout: 1 } : {};
      for (let m = 3; m >= 1; m--) {
        const start = now - m * MIN;
        events.push({
          type: 'window', start, end: start + 10_000, key, calls: 20, ok: 20 - (i % 10 === 0 ? 4 : 0), slow: 1, errors, rejected: 0,
          short_circuited: 0, retries: 1, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
          latency_ms: { bounds: [...DEFAULT_LATENCY_BOUNDS_MS], counts }, ttft_ms: i % 3 === 0 ? { bounds: [...DEFAULT_LATENCY_BOUNDS_MS], counts } : undefined,
          input_tokens: 2000, output_tokens: 400, cost_usd: 0.02,
        } as TelemetryEvent);
      }
      if (i % 20 === 0) {
        for (const location of ['eu-west', 'us-east']) {
          events.push({ type: 'probe', ts: now - 2 * MIN, key, location, outcome: 'ok', latency_ms: { connect: 20, ttfb: 200, total: 350 } });
        }
      }
      if (events.length >= 4000) await flush();
    }
    await flush();
  }
}

async function peer(series: number): Promise<{ totalMs: number; bytes: number }> {
  const registry = new Registry();
  const counter = new Counter({ name: 'peer_calls_total', help: 'peer', labelNames: ['provider', 'endpoint', 'model', 'region', 'service'], registers: [registry] });
  for (let i = 0; i < series; i++) counter.inc({ provider: 'openai', endpoint: 'chat', model: `org/model-${i}:v1@2025`, region: 'us-east', service: `svc-${i % 4}` }, 20);
  const t0 = performance.now();
  const text = await registry.metrics();
  return { totalMs: performance.now() - t0, bytes: Buffer.byteLength(text) };
}

const rows: string[] = [];
const mb = (n: number) => (n / 2 ** 20).toFixed(1);
for (const keys of SIZES) {
  for (const maxSeries of keys >= 50_000 ? [undefined, 100_000_000] : [undefined]) {
    const dir = mkdtempSync(join(tmpdir(), 'bbx-metrics-bench-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(maxSeries ? { metrics: { max_series: maxSeries } } : {}));
    // An alert interval of an hour: judged states stay fresh for the second scrape, and the
    // alert timer (first tick an interval after start) never runs during the bench.
    const config = loadConfig({
      env: { BREAKERBOX_DB: join(dir, 'bench.db'), BREAKERBOX_CONFIG: join(dir, 'config.json'), BREAKERBOX_ALERT_INTERVAL_S: '3600', BREAKERBOX_LOG_LEVEL: 'silent' },
    });
    const app = await buildApp({ config, logger: false });
    await app.ready();
    sqlOf(app).pragma('synchronous = OFF'); // seeding only; the figures below are reads
    const token = (await app.storage.tokens.create('bench', ['read'])).secret;
    const now = Date.now();
    const t0 = performance.now();
    await seed(app, keys, now);
    const seedS = (performance.now() - t0) / 1000;
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    global.gc?.();
    const rssBefore = process.memoryUsage.rss() / 2 ** 20;
    const judged = await scrape(url, token);
    global.gc?.();
    const rssBetween = process.memoryUsage.rss() / 2 ** 20;
    const reused = await scrape(url, token);
    const p = await peer(Math.min(judged.series, 500_000));
    const row = (label: string, s: Scrape, before: number) =>
      `${String(keys).padStart(6)} ${(maxSeries ? 'lifted' : 'default').padEnd(8)} ${label.padEnd(7)} ${String(s.series).padStart(9)} ${String(s.droppedKeys).padStart(7)}` +
      ` ${s.ttfbMs.toFixed(1).padStart(8)} ${s.totalMs.toFixed(0).padStart(8)} ${mb(s.bytes).padStart(8)}` +
      ` ${before.toFixed(0).padStart(6)} ${s.rssPeakMb.toFixed(0).padStart(7)} ${s.loopMaxMs.toFixed(0).padStart(11)} ${s.stateAgeS.toFixed(1).padStart(6)}`;
    rows.push(row('judged', judged, rssBefore) + `   | ${String(Math.min(judged.series, 500_000)).padStart(7)} ${p.totalMs.toFixed(0).padStart(6)} ${mb(p.bytes).padStart(6)}   (seeded in ${seedS.toFixed(1)} s)`);
    rows.push(row('reused', reused, rssBetween));
    console.log(rows.slice(-2).join('\n'));
    await app.close();
    rmSync(dir, { recursive: true, force: true });
    global.gc?.();
  }
}

console.log('\n/metrics over loopback HTTP from a client process; states judged by the scrape, then reused at once (age_s: their age);');
console.log('rss: collector process before the scrape, and its peak during it; loop_max_ms: its event loop\'s longest stall during the scrape');
console.log('  keys cap      states     series dropped  ttfb_ms total_ms  body_MB rss_MB peak_MB loop_max_ms  age_s   | peer: prom-client series  ms     MB');
for (const r of rows) console.log(r);
console.log('targets (issue 30): 50,000 keys < 5 s with the peak RSS during the scrape under 400 MB; the page is streamed, memory follows the series cap');

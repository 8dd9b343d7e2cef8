/**
 * OTLP ingest benchmark (issue 14): `POST /v1/metrics` with protobuf bodies of 1,000 GenAI
 * data points (200 keys × ok and four error types of `gen_ai.client.operation.duration`,
 * delta temporality), made by the OpenTelemetry SDK's own serializer, next to
 * `POST /v1/telemetry` carrying the same content as protocol v1 (the 200 windows those
 * points map to), against one real `breakerbox server` process in the same run. Prints data
 * points/s with 2 concurrent clients, and p50/p99 request latency at a steady 10 requests/s
 * (10,000 data points/s). Each OTLP body is made distinct by an unknown trailing field
 * (which receivers skip), as each protocol v1 body gets a fresh `batch_id`, so no request is
 * answered as a repeat.
 *
 * Then the same 500 model calls per request three ways (`otlp-same-calls.ts`): as GenAI
 * spans to `POST /v1/traces`, as the duration metric points they make to `/v1/metrics`, and
 * as the windows they map to on `/v1/telemetry`: calls (= spans) per second with 2
 * concurrent clients. The server runs with its defaults, so spans are tallied in memory and
 * written once per `ingest.otlp_traces_hold_ms`; `BREAKERBOX_OTLP_TRACES_HOLD_MS=0` (passed on
 * to the server) writes them with each request instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { TelemetryBatch } from '@breakerbox/protocol';
import { decodeMetricsProtobuf } from '../../server/otlp/decode-protobuf.ts';
import { metricsToWindows } from '../../server/otlp/metrics-to-windows.ts';
import { CumulativeSeries } from '../../server/otlp/series-state.ts';
import { bodyMaker } from '../otlp/otlp-bodies.ts';
import { peakRssMb, startServer } from './bench-server.ts';
import { CALLS, sameCalls } from './otlp-same-calls.ts';

const POINTS = 1000;
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 8);
const ADMIN = 'bench-admin-secret-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'bbx-otlp-bench-'));

const KEYS = Array.from({ length: 200 }, (_, i) => ({
  'gen_ai.provider.name': ['openai', 'anthropic', 'together'][i % 3]!,
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': `org/model-${i}:v1`,
  'breakerbox.region': ['us-east', 'eu-west'][i % 2]!,
}));
const ERROR_TYPES = [undefined, '503', '429', 'openai.APITimeoutError', 'openai.APIConnectionError'];

/** Six SDK-made protobuf bodies of 1,000 points each, one per collection. */
async function sdkBodies(): Promise<Buffer[]> {
  const maker = bodyMaker({ service: 'bench', instance: 'otlp-1' });
  const bodies: Buffer[] = [];
  for (let n = 0; n < 6; n++) {
    for (const key of KEYS) {
      for (const errorType of ERROR_TYPES) {
        const attrs = errorType ? { ...key, 'error.type': errorType } : key;
        for (let i = 0; i < (errorType ? 1 : 9); i++) maker.duration.record(0.05 + i * 0.25, attrs);
      }
    }
    bodies.push(await maker.body('protobuf'));
    await new Promise((r) => setTimeout(r, 5)); // distinct collection times
  }
  await maker.shutdown();
  return bodies;
}

/** The same content as protocol v1: the windows the collector maps the body to. */
function asTelemetry(body: Buffer): Omit<TelemetryBatch, 'batch_id'> {
  const series = new CumulativeSeries({ maxSeries: 1, idleMs: 1, startedAt: 0 });
  const now = Date.now();
  const mapped = metricsToWindows(decodeMetricsProtobuf(body), series.stage(), { oldest: now - 86_400_000, newest: now + 300_000 });
  if (mapped.rejected.count > 0 || mapped.batches.length !== 1) throw new Error(`unexpected mapping: ${mapped.rejected.message()}`);
  const { source, events } = mapped.batches[0]!;
  return { source: { ...source, instance: 'telemetry-1' }, events };
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

let seq = 0;
const FIELD_15_VARINT = 0x78;
const otlpBody = (bodies: Buffer[], i: number) => Buffer.concat([bodies[i % bodies.length]!, Buffer.from([FIELD_15_VARINT, ...varint(seq++)])]);
const telemetryBody = (tails: string[], i: number) => `{"batch_id":"otlp-bench-${seq++}-${Math.random()}",${tails[i % tails.length]}`;

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Kind {
  name: string;
  path: string;
  contentType: string;
  body: (i: number) => Buffer | string;
  /** What one request carries: data points, or calls. */
  per?: number;
}

async function post(pool: Pool, kind: Kind, body: Buffer | string): Promise<number> {
  const started = performance.now();
  const res = await pool.request({ path: kind.path, method: 'POST', body, headers: { 'content-type': kind.contentType, authorization: `Bearer ${ADMIN}` } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${kind.path} answered ${res.statusCode}: ${text}`);
  if ((kind.path === '/v1/metrics' || kind.path === '/v1/traces') && text.length > 0) throw new Error(`${kind.path} refused: ${text}`);
  return performance.now() - started;
}

async function throughput(pool: Pool, kind: Kind): Promise<number> {
  let sent = 0;
  const deadline = performance.now() + THROUGHPUT_SECONDS * 1000;
  const started = performance.now();
  const client = async () => {
    let i = 0;
    while (performance.now() < deadline) {
      await post(pool, kind, kind.body(i++));
      sent += kind.per ?? POINTS;
    }
  };
  await Promise.all([client(), client()]);
  return sent / ((performance.now() - started) / 1000);
}

async function steady(pool: Pool, kind: Kind): Promise<number[]> {
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < STEADY_SECONDS * 10; i++) {
    const tick = performance.now();
    inflight.push(post(pool, kind, kind.body(i)).then((ms) => void latencies.push(ms)));
    const wait = 100 - (performance.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inflight);
  return latencies.sort((a, b) => a - b);
}

async function main() {
  console.log(`making OTLP bodies with the OpenTelemetry SDK (${POINTS} data points each) ...`);
  const bodies = await sdkBodies();
  const tails = bodies.map((b) => JSON.stringify(asTelemetry(b)).slice(1));
  console.log(`  protobuf body ${fmt(bodies[0]!.length)} bytes; the same content as protocol v1 JSON ${fmt(tails[0]!.length)} bytes (${asTelemetry(bodies[0]!).events.length} windows)`);

  const kinds: Kind[] = [
    { name: 'OTLP /v1/metrics (protobuf)', path: '/v1/metrics', contentType: 'application/x-protobuf', body: (i) => otlpBody(bodies, i) },
    { name: 'protocol v1 /v1/telemetry', path: '/v1/telemetry', contentType: 'application/json', body: (i) => telemetryBody(tails, i) },
  ];
  console.log(`making the same ${CALLS} calls as spans, metric points and windows ...`);
  const same = await sameCalls(6);
  console.log(`  spans body ${fmt(same.traces[0]!.length)} bytes; metrics body ${fmt(same.metrics[0]!.length)} bytes; protocol v1 JSON ${fmt(same.telemetryTails[0]!.length)} bytes`);
  const callKinds: Kind[] = [
    { name: 'OTLP /v1/traces (protobuf)', path: '/v1/traces', contentType: 'application/x-protobuf', body: (i) => otlpBody(same.traces, i), per: CALLS },
    { name: 'OTLP /v1/metrics, same calls', path: '/v1/metrics', contentType: 'application/x-protobuf', body: (i) => otlpBody(same.metrics, i), per: CALLS },
    { name: 'v1 /v1/telemetry, same calls', path: '/v1/telemetry', contentType: 'application/json', body: (i) => telemetryBody(same.telemetryTails, i), per: CALLS },
  ];
  const server = await startServer(dir, ADMIN);
  const pool = new Pool(server.url, { connections: 4 });
  const results = new Map<string, { rate: number; latencies: number[] }>();
  try {
    for (const kind of kinds) for (let i = 0; i < 10; i++) await post(pool, kind, kind.body(i));
    for (const kind of kinds) {
      console.log(`${kind.name}: 2 concurrent clients, ${THROUGHPUT_SECONDS} s ...`);
      results.set(kind.name, { rate: await throughput(pool, kind), latencies: [] });
    }
    // The steady phase runs in the other order, so neither kind always meets the bigger database.
    for (const kind of [...kinds].reverse()) {
      console.log(`${kind.name}: steady 10 requests/s (10,000 data points/s), ${STEADY_SECONDS} s ...`);
      results.get(kind.name)!.latencies = await steady(pool, kind);
    }
    for (const kind of callKinds) for (let i = 0; i < 10; i++) await post(pool, kind, kind.body(i));
    for (const kind of callKinds) {
      console.log(`${kind.name}: 2 concurrent clients, ${THROUGHPUT_SECONDS} s ...`);
      results.set(kind.name, { rate: await throughput(pool, kind), latencies: [] });
    }
  } finally {
    await pool.close();
  }
  const rss = peakRssMb(server.pid);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });

  console.log('\nresults (same content, same server process, same run)');
  for (const kind of kinds) {
    const r = results.get(kind.name)!;
    console.log(`  ${kind.name.padEnd(30)} ${fmt(r.rate).padStart(9)} data points/s   p50 ${pct(r.latencies, 0.5).toFixed(1).padStart(6)} ms   p99 ${pct(r.latencies, 0.99).toFixed(1).padStart(6)} ms`);
  }
  const [otlp, telemetry] = kinds.map((k) => results.get(k.name)!.rate);
  console.log(`  ratio OTLP / protocol v1      ${(otlp! / telemetry!).toFixed(2).padStart(9)}`);
  console.log(`\nthe same ${CALLS} calls per request (spans = calls)`);
  for (const kind of callKinds) console.log(`  ${kind.name.padEnd(30)} ${fmt(results.get(kind.name)!.rate).padStart(9)} calls/s`);
  console.log(`  server peak RSS               ${rss.toFixed(0).padStart(9)} MB`);
}

await main();

/**
 * Evidence samples (issue 27): what they cost.
 *  - SDK: ns per protected call with sampling on (default 5 per key and window) and off
 *    (`samplesPerWindow: 0`), for a successful call and for a failing one (an official-client
 *    style APIError with a request id and a message to redact). Rounds interleave the four
 *    contenders so machine drift hits all alike; medians reported.
 *  - Ingest: validated batches of 1,000 `window` events written through the SQLite storage
 *    (the collector's write path without HTTP), every window carrying 5 samples beside none.
 *  - Evidence read: the verdict's cited samples of 200 degraded keys in one query
 *    (`SamplesPart.latestFailed`) beside one query per key.
 *
 * Run: `npm run bench -- samples`. BENCH_CALLS, BENCH_ROUNDS, BENCH_BATCHES tune it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallSample, TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { createBreakerbox } from '../../sdk/index.ts';
import { loadConfig } from '../../server/config/load.ts';
import { openStorage } from '../../server/storage/open-storage.ts';
import { validateBatch } from '../../server/ingest/validate-batch.ts';
import { systemClock } from '../../server/clock.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 40);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ---- SDK ----
const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const sdk = (samplesPerWindow: number) =>
  createBreakerbox({
    defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 1e9, consecutiveFailures: 0 } },
    telemetry: { url: 'http://127.0.0.1:9', service: 'bench', intervalMs: 3_600_000, samplesPerWindow },
  });
const on = sdk(5);
const off = sdk(0);
const headers = new Headers({ 'x-request-id': 'req_0123456789abcdef0123456789abcdef' });
const failure = Object.assign(new Error('503 The engine is currently overloaded, please try again later (key sk-proj-AbCdEf0123456789AbCd).'), {
  status: 503, headers, requestID: 'req_0123456789abcdef0123456789abcdef',
  error: { message: 'The engine is currently overloaded, please try again later (key sk-proj-AbCdEf0123456789AbCd).', type: 'server_error', code: null },
});
const ok = async () => 1;
const fail = async () => {
  throw failure;
};

async function loop(bb: ReturnType<typeof createBreakerbox>, fn: () => Promise<number>, n: number): Promise<number> {
  const policy = bb.policy(KEY);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    try {
      await policy.execute(fn);
    } catch {
      // the failing contender
    }
  }
  const ns = Number(process.hrtime.bigint() - t) / n;
  bb.collect(); // a window ends: samples are drained as they would be every interval
  return ns;
}

const contenders = { 'success, sampling off': [off, ok], 'success, sampling on': [on, ok], 'failure, sampling off': [off, fail], 'failure, sampling on': [on, fail] } as const;
const sdkRuns: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
for (const [, [bb, fn]] of Object.entries(contenders)) await loop(bb, fn, CALLS / 4); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, [bb, fn]] of Object.entries(contenders)) sdkRuns[name]!.push(await loop(bb, fn, CALLS));
}
console.log(`SDK, ns per call (median of ${ROUNDS} rounds of ${CALLS.toLocaleString('en')} calls):`);
for (const [name, runs] of Object.entries(sdkRuns)) console.log(`  ${name.padEnd(24)} ${median(runs).toFixed(0).padStart(6)} ns  (min ${Math.min(...runs).toFixed(0)}, max ${Math.max(...runs).toFixed(0)})`);
await on.close(10);
await off.close(10);

// ---- Ingest ----
const dir = mkdtempSync(join(tmpdir(), 'bbx-samples-bench-'));
const config = loadConfig({ env: { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_LOG_LEVEL: 'silent' } });
const storage = await openStorage(config, systemClock);
const KEYS = Array.from({ length: 200 }, (_, i) => ({ provider: 'openai', endpoint: 'chat', model: `org/model-${i}` }));
let seq = 0;
function batchOf(withSamples: boolean, now: number): TelemetryBatch {
  const events: WindowEvent[] = [];
  for (let i = 0; i < 1000; i++) {
    const end = now - 60_000 + (i % 50) * 1000;
    const w: WindowEvent = {
      type: 'window', start: end - 10_000, end, key: KEYS[i % KEYS.length]!, calls: 100, ok: 80, slow: 5, errors: { server: 10, rate_limit: 5 },
      rejected: 0, short_circuited: 0, retries: 3, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
      latency_ms: { bounds: [100, 1000], counts: [50, 45, 5] }, input_tokens: 10_000, output_tokens: 2_000, cost_usd: 0.01,
    };
    if (withSamples) {
      w.samples = Array.from({ length: 5 }, (_, j): CallSample => ({
        ts: end - j * 100, outcome: 'error', error_class: j % 2 ? 'rate_limit' : 'server', status: j % 2 ? 429 : 503, error_type: 'server_error',
        message: 'The engine is currently overloaded, please try again later.', upstream_request_id: `req_${seq}_${i}_${j}_0123456789abcdef`, attempt: 1, duration_ms: 812,
      }));
    }
    events.push(w);
  }
  return { batch_id: `b-${seq++}`, source: { service: 'bench', instance: 'pod-1' }, events };
}
const ingestRuns = { without: [] as number[], with: [] as number[] };
const validateMs = { without: [] as number[], with: [] as number[] };
for (let b = 0; b < BATCHES; b++) {
  for (const kind of ['without', 'with'] as const) {
    const now = Date.now();
    const body = JSON.parse(JSON.stringify(batchOf(kind === 'with', now))) as unknown;
    const t = process.hrtime.bigint();
    const batch = validateBatch(body, { oldest: now - 86_400_000, newest: now + 60_000 });
    validateMs[kind].push(Number(process.hrtime.bigint() - t) / 1e6);
    await storage.telemetry.insertBatch(batch, now);
    ingestRuns[kind].push(1000 / (Number(process.hrtime.bigint() - t) / 1e9));
  }
}
console.log(`  (validation alone: ${median(validateMs.without).toFixed(1)} ms per batch without samples, ${median(validateMs.with).toFixed(1)} ms with)`);
const stored = (await storage.samples.forKey((await storage.telemetry.findKeyId(KEYS[0]!))!, { from: 0, to: Date.now() + 1, limit: 10_000 })).length;
console.log(`Ingest (SQLite, validate + insert, batches of 1,000 windows, median of ${BATCHES}):`);
console.log(`  without samples        ${median(ingestRuns.without).toFixed(0).padStart(8)} events/s`);
console.log(`  5 samples every window ${median(ingestRuns.with).toFixed(0).padStart(8)} events/s  (${(median(ingestRuns.with) / median(ingestRuns.without)).toFixed(2)}x; one key kept ${stored} samples)`);

// ---- Evidence read (the verdict's cited samples) ----
// Every key degraded (the worst case): its latest 3 failed samples in one query, beside the
// naive read of one query per key; no citing key (a healthy fleet) reads nothing at all.
const ids = await Promise.all(KEYS.map(async (k) => (await storage.telemetry.findKeyId(k))!));
const readRuns = { one: [] as number[], perKey: [] as number[] };
const nowRead = Date.now();
for (let r = 0; r < 21; r++) {
  let t = process.hrtime.bigint();
  const found = await storage.samples.latestFailed(ids, nowRead - 15 * 60_000, nowRead + 1, 3);
  readRuns.one.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (found.size !== ids.length) throw new Error(`evidence read found ${found.size} of ${ids.length} keys`);
  t = process.hrtime.bigint();
  for (const id of ids) await storage.samples.forKey(id, { from: nowRead - 15 * 60_000, to: nowRead + 1, limit: 3 });
  readRuns.perKey.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(`Evidence read (SQLite, ${ids.length} degraded keys, latest 3 failed samples each of a 15 m window, median of 21):`);
console.log(`  one query (latestFailed)  ${median(readRuns.one).toFixed(2).padStart(8)} ms`);
console.log(`  one query per key         ${median(readRuns.perKey).toFixed(2).padStart(8)} ms`);
await storage.close();
rmSync(dir, { recursive: true, force: true });

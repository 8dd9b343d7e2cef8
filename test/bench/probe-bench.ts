/**
 * Prober benchmark (issue 4): 1,000 targets on one prober, one probe per target per
 * minute (the default jitter spreads each target over the first half of its minute),
 * through the real node-cron scheduler, undici exchanges on fresh connections, and the
 * push client (gzip batches), for about two minutes.
 *
 * The fake provider (test/support/fake-provider.ts, 20 ms before headers, 8 tokens,
 * 2 ms between stream frames) and a minimal telemetry receiver run in a child process,
 * so the CPU and memory figures are the prober's own. Targets: a quarter each of
 * OpenAI JSON, OpenAI streamed, Anthropic JSON, Anthropic streamed.
 *
 * Prints p50/p99/max lateness of probe starts against their schedule (slot + jitter),
 * the prober's CPU share of one core and its RSS. Targets: p99 < 1 s, CPU < 10%.
 *
 *   node bin/run-ts.js test/bench/probe-bench.ts [--duration 120] [--targets 1000]
 *   (or PROBE_BENCH_SECONDS / PROBE_BENCH_TARGETS in the environment)
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await bench();
}

/** Child process: the fake provider and a telemetry receiver; prints their URLs. */
async function serve(): Promise<void> {
  const { startFakeProvider } = await import('../support/fake-provider.ts');
  const fake = await startFakeProvider({ apiKeys: ['sk-bench-key-0123456789'], latencyMs: 20, tokens: 8, tokenIntervalMs: 2 });
  let events = 0;
  const receiver = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      events++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accepted: bytes > 0 ? 1 : 0, duplicate: false }));
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  // The fake keeps every attempt; at ~17 a second for minutes that is fine, but trim it anyway.
  setInterval(() => fake.attempts.splice(0, fake.attempts.length - 1000), 10_000).unref();
  process.stdout.write(`${JSON.stringify({ provider: fake.url, collector: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` })}\n`);
  process.on('SIGTERM', () => {
    process.stdout.write(`${JSON.stringify({ batches: events })}\n`);
    void fake.close().then(() => process.exit(0));
  });
}

async function bench(): Promise<void> {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, targets: { type: 'string' } }, strict: false });
  const seconds = Number(values.duration ?? process.env.PROBE_BENCH_SECONDS ?? 120);
  const targetCount = Number(values.targets ?? process.env.PROBE_BENCH_TARGETS ?? 1000);

  const { validateConfig } = await import('../../probe/config-validate.ts');
  const { Prober } = await import('../../probe/prober.ts');
  const { PushClient } = await import('../../probe/push-client.ts');
  const { createLogger } = await import('../../probe/logger.ts');
  const { createRedactor } = await import('../../probe/redact.ts');

  const child = spawn(process.execPath, [fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url)), fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const urls = await new Promise<{ provider: string; collector: string }>((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))));

  const kinds = [
    { kind: 'openai-chat', base: `${urls.provider}/v1`, stream: false },
    { kind: 'openai-chat', base: `${urls.provider}/v1`, stream: true },
    { kind: 'anthropic-messages', base: urls.provider, stream: false },
    { kind: 'anthropic-messages', base: urls.provider, stream: true },
  ];
  const raw = {
    max_concurrent: 64,
    defaults: { interval: '1m', latency_ceiling_ms: 2000, timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 10000 } },
    targets: Array.from({ length: targetCount }, (_, i) => {
      const k = kinds[i % kinds.length]!;
      return {
        name: `t${i}`,
        key: { provider: k.kind === 'openai-chat' ? 'fake-openai' : 'fake-anthropic', endpoint: 'chat', model: `org/bench-model-${i}:v1` },
        kind: k.kind,
        base_url: k.base,
        api_key_env: 'BENCH_KEY',
        request: { stream: k.stream },
        price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
      };
    }),
  };
  const { config, problems } = validateConfig(raw, { location: 'bench' });
  if (!config) throw new Error(problems.join('\n'));

  let warnings = 0;
  const log = createLogger({
    write: (line) => {
      warnings++;
      if (warnings <= 5) process.stderr.write(`${line}\n`);
    },
    redact: createRedactor(['sk-bench-key-0123456789']),
    level: 'warn',
  });
  const push = new PushClient({ url: urls.collector, token: 'bench-token-0123456789', location: 'bench', logger: log, flushIntervalMs: 5_000 });
  const lateness: number[] = [];
  const prober = new Prober({
    config,
    apiKeys: new Map([['BENCH_KEY', 'sk-bench-key-0123456789']]),
    sink: (e) => push.push(e),
    logger: log,
    onStart: (_t, scheduledAt, startedAt) => lateness.push(startedAt - scheduledAt),
  });

  const rssBefore = process.memoryUsage().rss;
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(process.memoryUsage().rss), 1_000);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  push.start();
  prober.start();
  console.log(`probe-bench: ${targetCount} targets at 1/min each for ${seconds} s (fake provider + receiver in a child process)`);
  await new Promise((r) => setTimeout(r, seconds * 1_000));
  await prober.stop();
  const left = await push.close(10_000);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);

  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));

  const sorted = [...lateness].sort((a, b) => a - b);
  const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const cpuShare = (cpu.user + cpu.system) / 1_000 / wallMs;
  const s = prober.stats;
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  console.log(`probes started: ${lateness.length} (one per target per minute, from the first full minute after start)`);
  console.log(`outcomes: ok ${s.ok}, slow ${s.slow}, error ${s.error}; overlaps skipped ${s.skippedOverlap}; events pushed ${push.stats.accepted}, dropped ${push.stats.dropped}, unsent ${left}`);
  console.log(`lateness vs schedule: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted.at(-1) ?? NaN} ms   (target p99 < 1000 ms: ${pct(0.99) < 1000 ? 'PASS' : 'FAIL'})`);
  console.log(`prober CPU: ${(cpuShare * 100).toFixed(2)}% of one core (user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s over ${(wallMs / 1e3).toFixed(0)} s)   (target < 10%: ${cpuShare < 0.1 ? 'PASS' : 'FAIL'})`);
  console.log(`prober RSS: peak ${mb(Math.max(...rss))} MB, end ${mb(rss.at(-1) ?? 0)} MB (${mb(rssBefore)} MB with the modules loaded, before scheduling)`);
  if (warnings > 0) console.log(`warnings logged: ${warnings}`);
  process.exit(0);
}

/**
 * SDK overhead per protected call over a bare `await` of an already-resolved async
 * function, next to opossum (breaker + timeout + semaphore) and cockatiel (bulkhead +
 * breaker) in the same process; plus heap per 10,000 keys.
 *
 * Then the fetch wrapper's per-call cost with shadow traffic off, on at share 0 and at 0.05.
 *
 * Run: `npm run bench -- sdk` (node --expose-gc, through tsx) for all of it; `npm run bench -- sdk --drills`
 * for the drills/validation figures alone, `npm run bench -- sdk --shadow-only` for the shadow figures alone.
 */
import CircuitBreaker from 'opossum';
import { bulkhead, circuitBreaker, ConsecutiveBreaker, handleAll, wrap } from 'cockatiel';
import { readFileSync } from 'node:fs';
import { createBreakerbox } from '../../sdk/index.ts';
import { drillsAndValidation } from './sdk-drills.ts';

/** The installed version of a peer, printed with its figures (read from disk: the package's exports hide its package.json). */
function installed(name: string): string {
  const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

const N = 200_000;
const ROUNDS = 7;

async function target(): Promise<number> {
  return 1;
}

async function loop(call: () => Promise<unknown>, n: number): Promise<number> {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - t) / n;
}

async function measure(name: string, call: () => Promise<unknown>): Promise<number> {
  await loop(call, N / 4); // warm-up: let the JIT settle
  const runs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) runs.push(await loop(call, N));
  runs.sort((a, b) => a - b);
  const median = runs[Math.floor(runs.length / 2)]!;
  return median;
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

// Which parts run: all three by default; `--drills` only the drills/validation figures,
// `--shadow-only` only the shadow figures (short runs). Each flag names its part alone.
const drillsOnly = process.argv.includes('--drills');
const shadowOnly = process.argv.includes('--shadow-only');
if (drillsOnly && shadowOnly) throw new Error('sdk bench: --drills and --shadow-only each run one part alone; pass one of them, or neither for all');
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
if (!drillsOnly && !shadowOnly) {
  const bb = createBreakerbox();
  const policy = bb.policy({ provider: 'openai', endpoint: 'chat', model: 'gpt-4o' });
  const ours = () => policy.execute(target);

  const opossum = new CircuitBreaker(target, { timeout: 3_000, capacity: 100, errorThresholdPercentage: 50, resetTimeout: 30_000 });
  const viaOpossum = () => opossum.fire();

  const cockatiel = wrap(bulkhead(100), circuitBreaker(handleAll, { halfOpenAfter: 30_000, breaker: new ConsecutiveBreaker(5) }));
  const viaCockatiel = () => cockatiel.execute(target);

  // Interleave the contenders so that drift of the machine (2 shared cores) hits all alike.
  const totals = { bare: [] as number[], breakerbox: [] as number[], opossum: [] as number[], cockatiel: [] as number[] };
  for (let pass = 0; pass < 3; pass++) {
    totals.bare.push(await measure('bare', target));
    totals.breakerbox.push(await measure('breakerbox', ours));
    totals.opossum.push(await measure('opossum', viaOpossum));
    totals.cockatiel.push(await measure('cockatiel', viaCockatiel));
  }
  const bare = med(totals.bare);
  const over = {
    breakerbox: med(totals.breakerbox) - bare,
    opossum: med(totals.opossum) - bare,
    cockatiel: med(totals.cockatiel) - bare,
  };

  console.log(`node ${process.version}, ${N} sequential calls x ${ROUNDS} rounds x 3 passes (medians)`);
  console.log(`bare await:                          ${bare.toFixed(0)} ns/call`);
  console.log(`breakerbox (breaker+bulkhead+retry budget+window aggregation): ${over.breakerbox.toFixed(0)} ns overhead/call`);
  console.log(`opossum ${installed('opossum')} (breaker+timeout+semaphore): ${over.opossum.toFixed(0)} ns overhead/call`);
  console.log(`cockatiel ${installed('cockatiel')} (bulkhead+breaker): ${over.cockatiel.toFixed(0)} ns overhead/call`);
  console.log(`ratio opossum / breakerbox:   ${(over.opossum / over.breakerbox).toFixed(2)}x  (target >= 3x)`);
  console.log(`ratio cockatiel / breakerbox: ${(over.cockatiel / over.breakerbox).toFixed(2)}x  (target > 1x)`);
  opossum.shutdown();

  // Heap per 10,000 keys: each key with its breaker, bulkhead, rolling window and telemetry window.
  gc();
  const before = process.memoryUsage().heapUsed;
  const heapBox = createBreakerbox();
  for (let i = 0; i < 10_000; i++) {
    const p = heapBox.policy({ provider: 'together', endpoint: 'chat', model: `org/model-${i}:v1@2025`, region: 'us-east' });
    await p.execute(target);
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(`heap for 10,000 keys: ${((after - before) / 1024 / 1024).toFixed(2)} MiB (${((after - before) / 10_000).toFixed(0)} bytes/key)`);
  console.log(`keys held: ${heapBox.keys().length}`);
}

if (!shadowOnly) await drillsAndValidation({ loop, med });
if (!drillsOnly) await shadowTraffic();

// Shadow traffic (issue 28): per-call cost of the fetch wrapper with `shadow` off, on at
// share 0 and on at share 0.05, over an in-memory provider (the stub answers at once, so the
// figures are the wrapper's own work; at 0.05 they include the mirrors' — 1 call in 20
// sends a second request and compares both answers).
async function shadowTraffic(): Promise<void> {
  const CHAT_ANSWER = JSON.stringify({
    id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello there', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
  });
  const stubFetch = async () => new Response(CHAT_ANSWER, { status: 200, headers: { 'content-type': 'application/json' } });
  const REQUEST = { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) };
  const FETCH_N = 2_000;
  function fetchVariant(share: number | undefined) {
    const box = createBreakerbox({ shadowLimits: { maxConcurrent: 64 } });
    const f = box.fetch({ fetch: stubFetch, ...(share === undefined ? {} : { shadow: { 'gpt-4o': { model: 'gpt-4.1', share } } }) });
    return { box, call: async () => (await f('https://api.openai.com/v1/chat/completions', REQUEST)).text() };
  }
  const variants = { off: fetchVariant(undefined), share0: fetchVariant(0), share005: fetchVariant(0.05) };
  const fetchTotals = { off: [] as number[], share0: [] as number[], share005: [] as number[] };
  // Variants take turns every round (9 rounds), so drift of the shared machine hits them alike.
  for (const v of Object.values(variants)) await loop(v.call, FETCH_N / 4);
  for (let round = 0; round < 9; round++) {
    for (const name of ['off', 'share0', 'share005'] as const) fetchTotals[name].push(await loop(variants[name].call, FETCH_N));
  }
  const fOff = med(fetchTotals.off);
  console.log(`fetch wrapper, in-memory provider, ${FETCH_N} sequential calls x 9 interleaved rounds (medians):`);
  console.log(`  shadow off:        ${(fOff / 1000).toFixed(1)} µs/call`);
  console.log(`  shadow share 0:    ${(med(fetchTotals.share0) / 1000).toFixed(1)} µs/call (${((med(fetchTotals.share0) - fOff) / 1000).toFixed(1)} µs over off)`);
  console.log(`  shadow share 0.05: ${(med(fetchTotals.share005) / 1000).toFixed(1)} µs/call (${((med(fetchTotals.share005) - fOff) / 1000).toFixed(1)} µs over off, mirrors included)`);
  const mirrored = variants.share005.box.collect().filter((e) => e.type === 'shadow').reduce((a, e) => a + (e.type === 'shadow' ? e.pairs : 0), 0);
  console.log(`  mirrored at 0.05: ${mirrored} pairs recorded`);
  for (const v of Object.values(variants)) await v.box.close();
}

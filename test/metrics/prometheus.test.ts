import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LATENCY_BOUNDS_MS, type BreakerKey, type WindowEvent } from '@breakerbox/protocol';
import { collector, type TestCollector } from '../verdicts/support.ts';
import { startPrometheus, type RealPrometheus } from './real-prometheus.ts';

const RULES = fileURLToPath(new URL('../../integrations/prometheus/rules.yml', import.meta.url));
const OPENAI: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const ANTHROPIC: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4', region: 'eu' };

/** A window with `counts` per protocol bucket (bounds 25, 50, 100, 250, 500, 1000 ms, …). */
function windowOf(key: BreakerKey, counts: Record<number, number>): WindowEvent {
  const latency = new Array<number>(DEFAULT_LATENCY_BOUNDS_MS.length + 1).fill(0);
  let calls = 0;
  for (const [i, n] of Object.entries(counts)) {
    latency[Number(i)] = n;
    calls += n;
  }
  const end = Date.now();
  return {
    type: 'window', start: end - 10_000, end, key, calls, ok: calls, slow: 0, errors: {}, rejected: 0, short_circuited: 0, retries: 0,
    cold_excluded: 0, half_open: { ok: 0, failed: 0 }, latency_ms: { bounds: [...DEFAULT_LATENCY_BOUNDS_MS], counts: latency },
    input_tokens: 0, output_tokens: 0, cost_usd: 0,
  };
}

let c: TestCollector;
let prom: RealPrometheus;
let feeder: NodeJS.Timeout;

beforeAll(async () => {
  c = await collector();
  const address = await c.app.listen({ port: 0, host: '127.0.0.1' });
  // Every batch: openai 30 calls in (50, 100] ms and 10 in (500, 1000]; anthropic 10 in (100, 250].
  const feed = () =>
    c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [windowOf(OPENAI, { 2: 30, 5: 10 }), windowOf(ANTHROPIC, { 3: 10 })]).catch(() => undefined);
  await feed();
  feeder = setInterval(feed, 500);
  prom = await startPrometheus({ target: new URL(address).host, token: c.token, ruleFiles: [RULES] });
});
afterAll(async () => {
  clearInterval(feeder);
  await prom?.close();
  await c?.close();
});

/** Polls `check` once a second until it returns a value, for at most `seconds`. */
async function eventually<T>(seconds: number, check: () => Promise<T | undefined>): Promise<T> {
  let last: unknown;
  for (let i = 0; i < seconds; i++) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`Prometheus did not have the answer within ${seconds} s${last ? `: ${String(last)}` : ''}`);
}

const byProvider = (rows: { metric: Record<string, string>; value: [number, string] }[]) =>
  Object.fromEntries(rows.map((r) => [r.metric.provider!, Number(r.value[1])]));

describe('a real Prometheus scraping the collector', () => {
  it('answers rate() per provider from the call counters', async () => {
    const rates = await eventually(45, async () => {
      const r = byProvider(await prom.query('sum by (provider) (rate(breakerbox_calls_total[1m]))'));
      return r.openai! > 0 && r.anthropic! > 0 ? r : undefined;
    });
    // Both keys grow in the same batches: 40 calls against 10.
    expect(rates.openai! / rates.anthropic!).toBeCloseTo(4, 6);
    expect((await prom.query('up{job="breakerbox"}'))[0]?.value[1]).toBe('1');
  }, 60_000);

  it('answers histogram_quantile over the latency buckets with the ingested values', async () => {
    const q = (phi: number) =>
      prom.query(`histogram_quantile(${phi}, sum by (provider, le) (rate(breakerbox_call_duration_seconds_bucket[1m])))`).then(byProvider);
    const p90 = await eventually(45, async () => {
      const r = await q(0.9);
      return Number.isFinite(r.openai) && Number.isFinite(r.anthropic) ? r : undefined;
    });
    // openai: rank 36 of 40; 30 at or below 0.1 s, the next 10 in (0.5, 1]: 0.5 + 6/10 * 0.5.
    expect(p90.openai).toBeCloseTo(0.8, 6);
    // anthropic: all in (0.1, 0.25]: 0.1 + 0.9 * 0.15.
    expect(p90.anthropic).toBeCloseTo(0.235, 6);
    // openai median: rank 20 of the 30 in (0.05, 0.1].
    expect((await q(0.5)).openai).toBeCloseTo(0.05 + (20 / 30) * 0.05, 6);
  }, 60_000);

  it('evaluates the shipped recording rules over the exported names', async () => {
    const rates = await eventually(45, async () => {
      const r = byProvider(await prom.query('breakerbox_provider:calls:rate5m'));
      return r.openai! > 0 && r.anthropic! > 0 ? r : undefined;
    });
    expect(rates.openai! / rates.anthropic!).toBeCloseTo(4, 6);
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import {
  BreakerboxError,
  createBreakerbox,
  RetryBudget,
  SDK_ERROR_CODES,
  decideRetry,
  DEFAULT_RETRY_OPTIONS,
  isBreakerboxError,
  reviewFallbacks,
  runHedged,
  systemClock,
  type ConfigEvent,
  type WindowEvent,
} from '../../sdk/index.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const err = (status: number, headers?: Record<string, string>) => Object.assign(new Error(`status ${status}`), { status, headers });
const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 5 } };

describe('bulkhead', () => {
  it('refuses calls beyond the cap at once and counts the rejections', async () => {
    const bb = createBreakerbox({ defaults: { bulkhead: { maxConcurrent: 2 } } });
    const slow = () => sleep(30);
    const results = await Promise.allSettled([bb.execute(KEY, slow), bb.execute(KEY, slow), bb.execute(KEY, slow)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(isBreakerboxError((results[2] as PromiseRejectedResult).reason, SDK_ERROR_CODES.BULKHEAD_FULL)).toBe(true);
    expect(bb.collect()[0]).toMatchObject({ calls: 2, rejected: 1 });
  });

  it('lets a bounded queue wait for a slot', async () => {
    const bb = createBreakerbox({ defaults: { bulkhead: { maxConcurrent: 1, maxQueue: 1 } } });
    const order: number[] = [];
    const run = (i: number) => bb.execute(KEY, async () => (await sleep(10), order.push(i)));
    const results = await Promise.allSettled([run(1), run(2), run(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(order).toEqual([1, 2]);
  });
});

describe('retries', () => {
  it('retries retryable classes up to the attempt cap and not client faults', async () => {
    const bb = createBreakerbox({ defaults: FAST });
    let n = 0;
    await expect(bb.execute(KEY, async () => (n++, Promise.reject(err(503))))).rejects.toThrow('503');
    expect(n).toBe(3);
    n = 0;
    await expect(bb.execute(KEY, async () => (n++, Promise.reject(err(401))))).rejects.toThrow('401');
    expect(n).toBe(1);
  });

  it('never resends a request marked non-idempotent without an idempotency key', async () => {
    const bb = createBreakerbox({ defaults: FAST });
    let n = 0;
    const fn = async () => (n++, Promise.reject(err(500)));
    await bb.execute(KEY, fn, { idempotent: false }).catch(() => undefined);
    expect(n).toBe(1);
    await bb.execute(KEY, fn, { idempotent: false, idempotencyKey: 'k-1' }).catch(() => undefined);
    expect(n).toBe(4);
  });

  it('stops retrying once the process-wide budget is spent', () => {
    const clock = new ManualClock();
    const budget = new RetryBudget({ windowMs: 10_000, ratio: 0.1, minRetries: 2 }, clock);
    for (let i = 0; i < 10; i++) budget.recordRequest(clock.now());
    const granted = Array.from({ length: 5 }, () => budget.tryWithdraw());
    expect(granted).toEqual([true, true, true, false, false]); // floor 2 + 10% of 10
  });

  it('does not retry while the breaker is open, nor past the deadline, and honours retry-after within it', () => {
    const base = { cls: 'server' as const, attempt: 1, retryAfterMs: undefined, remainingMs: Infinity, breakerClosed: true, idempotent: true, withdraw: () => true };
    const r = () => 0.5;
    expect(decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, breakerClosed: false }, r)).toEqual({ retry: false, reason: 'breaker_open' });
    expect(decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, cls: 'rate_limit', retryAfterMs: 2_000 }, r)).toEqual({ retry: true, delayMs: 2_000, honouredRetryAfter: true });
    expect(decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, cls: 'rate_limit', retryAfterMs: 2_000, remainingMs: 1_000 }, r)).toMatchObject({ retry: false });
    expect(decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, cls: 'timeout' }, r)).toEqual({ retry: false, reason: 'not_retryable' });
    expect(decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, withdraw: () => false }, r)).toEqual({ retry: false, reason: 'budget' });
    const delays = [0, 0.5, 0.999].map((x) => decideRetry(DEFAULT_RETRY_OPTIONS, { ...base, attempt: 2 }, () => x));
    expect(delays.map((d) => (d.retry ? d.delayMs : -1))).toEqual([0, 200, 399]); // full jitter over 2^(n-1) × base
  });
});

describe('deadlines and aborts', () => {
  it('ends a call at its total deadline with a timeout error, even if the function ignores its signal', async () => {
    const bb = createBreakerbox();
    const e = await bb.execute(KEY, () => new Promise(() => undefined), { deadlineMs: 30 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BreakerboxError);
    expect((e as BreakerboxError).errorClass).toBe('timeout');
    expect(bb.collect()[0]).toMatchObject({ errors: { timeout: 1 } });
  });

  it('does not hold a caller’s own abort against the provider', async () => {
    const bb = createBreakerbox();
    const ac = new AbortController();
    const p = bb.execute(KEY, (signal) => new Promise((_, rej) => signal!.addEventListener('abort', () => rej(signal!.reason))), { signal: ac.signal, deadlineMs: 10_000 });
    ac.abort(new Error('user left'));
    await expect(p).rejects.toThrow('user left');
    expect(bb.collect()).toEqual([]);
  });
});

describe('cost budget', () => {
  it('refuses a request before sending when its estimate crosses a ceiling', async () => {
    const bb = createBreakerbox({ budget: { perRequestUsd: 0.01, hourlyUsd: 0.05 } });
    let sent = 0;
    const e = await bb.execute(KEY, async () => sent++, { estimatedCostUsd: 0.02 }).catch((x: unknown) => x);
    expect(isBreakerboxError(e, SDK_ERROR_CODES.BUDGET_EXCEEDED)).toBe(true);
    expect((e as BreakerboxError).message).toMatch(/per-request ceiling/);
    expect(sent).toBe(0);
    for (let i = 0; i < 5; i++) await bb.execute(KEY, async () => 'x', { facts: () => ({ costUsd: 0.01 }) });
    await expect(bb.execute(KEY, async () => 'x', { estimatedCostUsd: 0.005 })).rejects.toThrow(/hourly ceiling/);
  });
});

describe('hedging', () => {
  it('sends a second attempt after the hedge delay and takes the first answer', async () => {
    const bb = createBreakerbox({ defaults: { hedge: { enabled: true, delayMs: 20 } } });
    let n = 0;
    const v = await bb.execute(KEY, async (signal) => {
      const me = ++n;
      await new Promise((res, rej) => {
        const t = setTimeout(res, me === 1 ? 200 : 5);
        signal?.addEventListener('abort', () => (clearTimeout(t), rej(new Error('lost'))));
      });
      return me;
    });
    expect(v).toBe(2);
    const w = bb.collect()[0] as WindowEvent;
    expect(w).toMatchObject({ calls: 1, ok: 1 }); // the aborted loser is not an outcome
  });

  it('does not hedge a primary that fails fast', async () => {
    const e = await runHedged(() => Promise.reject(new Error('fast')), () => Promise.resolve('hedge'), 50, systemClock).catch((x: unknown) => x);
    expect((e as Error).message).toBe('fast');
  });
});

describe('configuration review', () => {
  it('warns about a fallback sharing the primary’s provider and region, or host and key', () => {
    const primary = { key: { ...KEY, region: 'us' }, host: 'api.openai.com', credentialId: 'a' };
    expect(reviewFallbacks(primary, [{ key: { ...KEY, model: 'gpt-4o-mini', region: 'us' } }])).toHaveLength(1);
    expect(reviewFallbacks(primary, [{ key: { ...KEY, region: 'eu' } }])).toEqual([]);
    expect(reviewFallbacks(primary, [{ key: { provider: 'proxy', endpoint: 'chat', model: 'gpt-4o' }, host: 'api.openai.com', credentialId: 'a' }])).toHaveLength(1);
  });

  it('warns at construction of the fetch wrapper and reports the warning in the config event', async () => {
    const events: ConfigEvent[] = [];
    const bb = createBreakerbox();
    const warnings: string[] = [];
    bb.onWarning((w) => warnings.push(w));
    bb.fetch({
      baseURL: 'https://api.openai.com/v1',
      fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }, { baseURL: 'https://api.together.xyz/v1', apiKey: 'other', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' }] },
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/gpt-4o-mini.*shares.*openai/);
    // The same review lands in telemetry: a local source shows the config event's fields.
    const rx = await import('./telemetry-receiver.ts').then((m) => m.startReceiver());
    try {
      const bb2 = createBreakerbox({ telemetry: { url: rx.url, service: 's', coalesceMs: 5 } });
      bb2.onWarning(() => undefined);
      bb2.fetch({ baseURL: 'https://api.openai.com/v1', fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
      await bb2.close();
      for (const r of rx.received) for (const e of r.batch.events) if (e.type === 'config') events.push(e);
    } finally {
      await rx.close();
    }
    const primary = events.filter((e) => e.key.model === 'gpt-4o').at(-1)!;
    expect(primary.fallbacks).toEqual([{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }]);
    expect(primary.warnings[0]).toMatch(/fail together/);
  });
});

describe('fallback chain', () => {
  it('serves from a local level-4 answer, flagged degraded, when every keyed level fails; failClosed never substitutes', async () => {
    const bb = createBreakerbox({ defaults: FAST });
    bb.onWarning(() => undefined);
    const levels = [
      { key: KEY, run: () => Promise.reject(err(503)) },
      { key: { ...KEY, provider: 'azure' }, run: () => Promise.reject(err(503)) },
      { run: async () => 'templated answer' },
    ];
    const r = await bb.operation({ name: 'reply', levels }).run(undefined);
    expect(r).toMatchObject({ value: 'templated answer', level: 4, degraded: true });
    expect(r.attempts.filter((a) => !a.ok)).toHaveLength(6);
    await expect(bb.operation({ name: 'write', levels, failClosed: true }).run(undefined)).rejects.toThrow('503');
  });

  it('moves on at once when a level’s breaker is open, without touching it', async () => {
    const bb = createBreakerbox();
    bb.policy(KEY).breaker.forceOpen();
    let touched = 0;
    const r = await bb.operation({ name: 'x', levels: [{ key: KEY, run: async () => (touched++, 'a') }, { key: { ...KEY, model: 'b' }, run: async () => 'b' }] }).run(undefined);
    expect(r.value).toBe('b');
    expect(touched).toBe(0);
    expect(bb.collect().find((e) => e.type === 'window' && e.key.model === 'gpt-4o')).toMatchObject({ short_circuited: 1, calls: 0 });
  });
});

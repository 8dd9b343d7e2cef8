import { describe, expect, it } from 'vitest';
import CircuitBreaker from 'opossum';
import { bulkhead, circuitBreaker, ConsecutiveBreaker, handleAll, wrap, BrokenCircuitError } from 'cockatiel';
import { attachCockatiel, attachOpossum, createBreakerbox, observeFallback, type BreakerTransition, type TasksEvent, type WindowEvent } from '../../sdk/index.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const providerError = (status: number) => Object.assign(new Error(`status ${status}`), { status });

describe('opossum adapter', () => {
  it('turns opossum events into windows and transitions, classifying each failure', async () => {
    const bb = createBreakerbox();
    const seen: BreakerTransition[] = [];
    bb.onStateChange((t) => seen.push(t));
    let fail: number | undefined = 503;
    const breaker = new CircuitBreaker(async () => {
      if (fail) throw providerError(fail);
      return 'ok';
    }, { errorThresholdPercentage: 50, volumeThreshold: 2, resetTimeout: 50, capacity: 10 });
    const detach = attachOpossum(bb, KEY, breaker);
    for (let i = 0; i < 2; i++) await breaker.fire().catch(() => undefined);
    await breaker.fire().catch(() => undefined); // refused: open
    await sleep(70);
    fail = undefined;
    await breaker.fire();
    detach();
    breaker.shutdown();
    expect(seen.map((t) => `${t.from}>${t.to}:${t.reason}`)).toEqual([
      'null>closed:created',
      'closed>open:error_rate',
      'open>half_open:cooldown_elapsed',
      'half_open>closed:probes_succeeded',
    ]);
    expect(seen[1]!.cooldownMs).toBe(50);
    const w = bb.collect().find((e): e is WindowEvent => e.type === 'window')!;
    expect(w).toMatchObject({ calls: 3, ok: 1, errors: { server: 2 }, short_circuited: 1, half_open: { ok: 1, failed: 0 } });
  });

  it('counts semaphore rejections as bulkhead rejections, and fallback failures through observeFallback', async () => {
    const bb = createBreakerbox();
    const breaker = new CircuitBreaker(() => sleep(30), { capacity: 1 });
    breaker.fallback(observeFallback(bb, 'draft', () => Promise.reject(new Error('cache empty'))));
    attachOpossum(bb, KEY, breaker);
    await Promise.allSettled([breaker.fire(), breaker.fire()]);
    breaker.shutdown();
    const events = bb.collect();
    expect(events.find((e) => e.type === 'window')).toMatchObject({ calls: 1, ok: 1, rejected: 1 });
    expect(events.find((e): e is TasksEvent => e.type === 'tasks')).toMatchObject({ operation: 'draft', failed: 1, fallback: { invoked: 1, failed: 1 } });
  });
});

describe('cockatiel adapter', () => {
  it('turns cockatiel breaker and bulkhead events into windows and transitions', async () => {
    const bb = createBreakerbox();
    const seen: BreakerTransition[] = [];
    bb.onStateChange((t) => seen.push(t));
    const cb = circuitBreaker(handleAll, { halfOpenAfter: 40, breaker: new ConsecutiveBreaker(2) });
    const bh = bulkhead(1);
    const policy = wrap(bh, cb);
    const a = attachCockatiel(bb, KEY, cb, bh);
    let status: number | undefined = 429;
    const call = () =>
      a.wrapExecute(policy, async () => {
        if (status) throw providerError(status);
        return 'ok';
      });
    for (let i = 0; i < 3; i++) await call().catch(() => undefined);
    await Promise.allSettled([policy.execute(() => sleep(20)), policy.execute(() => sleep(20))]);
    await sleep(50);
    status = undefined;
    await call();
    a.detach();
    expect(seen.map((t) => `${t.from}>${t.to}:${t.reason}`)).toEqual([
      'null>closed:created',
      'closed>open:error_rate',
      'open>half_open:cooldown_elapsed',
      'half_open>closed:probes_succeeded',
    ]);
    const w = bb.collect().find((e): e is WindowEvent => e.type === 'window')!;
    expect(w.errors).toEqual({ rate_limit: 2 });
    expect(w.short_circuited).toBeGreaterThanOrEqual(1);
    expect(w.rejected).toBe(1);
    expect(w.half_open).toEqual({ ok: 1, failed: 0 });
    expect(BrokenCircuitError).toBeDefined();
  });
});

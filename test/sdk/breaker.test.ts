import { describe, expect, it } from 'vitest';
import { Breaker, PASS, PASS_PROBE, REFUSED_HALF_OPEN_BUSY, REFUSED_OPEN, type BreakerTransition } from '../../sdk/policies/breaker.ts';
import { DEFAULT_BREAKER_OPTIONS } from '../../sdk/policies/breaker-options.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };

function make(over: Partial<typeof DEFAULT_BREAKER_OPTIONS> = {}) {
  const clock = new ManualClock();
  const b = new Breaker(KEY, { ...DEFAULT_BREAKER_OPTIONS, cooldownJitter: 0, ...over }, clock, () => 0.5);
  const seen: BreakerTransition[] = [];
  b.onStateChange((t) => seen.push(t));
  return { clock, b, seen };
}

function calls(b: Breaker, clock: ManualClock, n: number, cls: Parameters<Breaker['record']>[1], slow = false) {
  for (let i = 0; i < n; i++) {
    expect(b.tryPass(clock.now())).toBe(PASS);
    b.record(clock.now(), cls, slow, false, false);
  }
}

describe('Breaker', () => {
  it('announces its first state as created, from null', () => {
    const { b, seen } = make();
    b.announce();
    expect(seen).toMatchObject([{ from: null, to: 'closed', reason: 'created' }]);
  });

  it('opens after the provider error share crosses its threshold, only past the minimum volume', () => {
    const { b, clock, seen } = make({ minCalls: 20, consecutiveFailures: 0 });
    calls(b, clock, 9, null);
    calls(b, clock, 10, 'server');
    expect(b.state.name).toBe('closed'); // 19 calls: under the minimum volume
    calls(b, clock, 1, 'server');
    expect(b.state.name).toBe('open');
    expect(seen.at(-1)).toMatchObject({ from: 'closed', to: 'open', reason: 'error_rate', cooldownMs: 5_000, attempt: 1 });
    expect(seen.at(-1)!.rates.error).toBeCloseTo(11 / 20);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
  });

  it('never trips on client-fault classes, however many', () => {
    const { b, clock } = make({ minCalls: 5 });
    for (const cls of ['bad_request', 'auth', 'quota', 'context_length', 'policy', 'truncated'] as const) calls(b, clock, 10, cls);
    expect(b.state.name).toBe('closed');
  });

  it('opens on slow calls over the absolute latency ceiling', () => {
    const { b, clock, seen } = make({ minCalls: 10 });
    calls(b, clock, 4, null);
    calls(b, clock, 6, null, true);
    expect(seen.at(-1)).toMatchObject({ to: 'open', reason: 'slow_calls' });
  });

  it('opens on bulkhead rejections in the window', () => {
    const { b, clock, seen } = make({ minCalls: 5, rejectionThreshold: 10 });
    for (let i = 0; i < 10; i++) b.recordRejection(clock.now());
    expect(seen.at(-1)).toMatchObject({ to: 'open', reason: 'rejections' });
  });

  it('forgets failures older than the rolling window', async () => {
    const { b, clock } = make({ minCalls: 10, windowMs: 60_000, consecutiveFailures: 0 });
    calls(b, clock, 9, 'server');
    await clock.advance(61_000);
    calls(b, clock, 9, null);
    calls(b, clock, 1, 'server');
    expect(b.state.name).toBe('closed');
  });

  it('allows one probe at a time when half-open and closes after K consecutive clean probes', async () => {
    const { b, clock, seen } = make({ minCalls: 1, halfOpenSuccesses: 3 });
    calls(b, clock, 1, 'server');
    await clock.advance(30_000);
    for (let i = 0; i < 3; i++) {
      expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
      expect(b.tryPass(clock.now())).toBe(REFUSED_HALF_OPEN_BUSY);
      b.record(clock.now(), null, false, true, false);
    }
    expect(b.state.name).toBe('closed');
    expect(seen.map((t) => t.reason)).toEqual(['error_rate', 'cooldown_elapsed', 'probes_succeeded']);
  });

  it('re-opens on a failed probe with the cooldown doubled, capped, and resets the count after a stable period', async () => {
    const { b, clock, seen } = make({ minCalls: 1, cooldownMs: 1_000, maxCooldownMs: 3_000, stableResetMs: 10_000, halfOpenSuccesses: 1 });
    calls(b, clock, 1, 'server');
    for (let i = 0; i < 3; i++) {
      await clock.advance(10_000);
      expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
      b.record(clock.now(), 'timeout', false, true, false);
    }
    const opens = seen.filter((t) => t.to === 'open');
    expect(opens.map((t) => t.cooldownMs)).toEqual([1_000, 2_000, 3_000, 3_000]);
    expect(opens.at(-1)!.reason).toBe('probe_failed');
    // Close, stay closed past stableResetMs, open again: back to the base cooldown.
    await clock.advance(10_000);
    b.tryPass(clock.now());
    b.record(clock.now(), null, false, true, false);
    expect(b.state.name).toBe('closed');
    await clock.advance(20_000);
    calls(b, clock, 1, 'server');
    expect(seen.at(-1)).toMatchObject({ to: 'open', cooldownMs: 1_000, attempt: 1 });
  });

  it('trips on consecutive provider-side failures below the volume floor, as error_rate', () => {
    const { b, clock, seen } = make();
    calls(b, clock, 4, 'server');
    calls(b, clock, 1, null); // a success ends the run
    calls(b, clock, 4, 'timeout');
    calls(b, clock, 1, 'bad_request'); // so does a client fault: the provider answered
    calls(b, clock, 4, 'network');
    expect(b.state.name).toBe('closed');
    calls(b, clock, 1, 'server');
    expect(seen.at(-1)).toMatchObject({ to: 'open', reason: 'error_rate', cooldownMs: 5_000, attempt: 1 });
  });

  it('leaves a run of failures to the share rule once past the volume floor', () => {
    const low = make({ minCalls: 20 });
    calls(low.b, low.clock, 20, null);
    calls(low.b, low.clock, 6, 'server'); // 6 in a row, 6/26 errors: above the floor only the share counts
    expect(low.b.state.name).toBe('closed');
  });

  it('brings traffic back soon by default: cooldown 5 s, doubling per consecutive open, capped at 20 s', async () => {
    const { b, clock, seen } = make({ halfOpenSuccesses: 1 });
    calls(b, clock, 5, 'server');
    for (let i = 0; i < 4; i++) {
      await clock.advance(20_000);
      expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
      b.record(clock.now(), 'server', false, true, false);
    }
    expect(seen.filter((t) => t.to === 'open').map((t) => t.cooldownMs)).toEqual([5_000, 10_000, 20_000, 20_000, 20_000]);
  });

  it('jitters the cooldown within its share', () => {
    const clock = new ManualClock();
    const b = new Breaker(KEY, { ...DEFAULT_BREAKER_OPTIONS, minCalls: 1, cooldownJitter: 0.2 }, clock, () => 1);
    b.tryPass(clock.now());
    b.record(clock.now(), 'server', false, false, false);
    const s = b.state;
    expect(s.name === 'open' && s.cooldownMs).toBe(6_000);
  });

  it('leaves cold calls out of the trip statistics', () => {
    const { b, clock } = make({ minCalls: 2, consecutiveFailures: 2 });
    b.tryPass(clock.now());
    b.record(clock.now(), 'server', false, false, true);
    expect(b.state.name).toBe('closed'); // a cold failure does not start a run either
    calls(b, clock, 1, 'server');
    expect(b.state.name).toBe('closed');
    expect(b.rates().error).toBe(1);
  });

  it('can be forced open and closed by hand', () => {
    const { b, clock, seen } = make();
    b.forceOpen();
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    b.forceClose();
    expect(b.tryPass(clock.now())).toBe(PASS);
    expect(seen.map((t) => `${t.to}:${t.reason}`)).toEqual(['forced_open:manual', 'closed:manual']);
  });

  it('stops calling a listener once unsubscribed', () => {
    const { b } = make();
    let n = 0;
    const off = b.onStateChange(() => n++);
    b.forceOpen();
    off();
    b.forceClose();
    expect(n).toBe(1);
  });
});

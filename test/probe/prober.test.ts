/**
 * The prober's scheduling rules: one probe per target at a time (overlaps skipped
 * and counted), a concurrency cap across targets, the daily cost cap, warm-ups after
 * an idle period, and a stop that waits for what is in flight.
 */
import { describe, expect, it } from 'vitest';
import type { ExchangeInput, ExchangeResult } from '../../probe/exchange.ts';
import { Prober, type ProberOptions } from '../../probe/prober.ts';
import { CronScheduler } from '../../probe/scheduler.ts';
import { silentLogger } from '../../probe/logger.ts';
import type { ProbeEvent } from '@breakerbox/protocol';
import { API_KEY, captureLogger, configOf, manualClock, ManualScheduler, rawTarget } from './helpers.ts';

const BASE = 'http://127.0.0.1:9/v1';
const OK: ExchangeResult = { ok: true, status: 200, latency: { connect: 1, ttfb: 5, total: 9 }, usage: { inputTokens: 1000, outputTokens: 500 }, reason: 'ok' };

/** An exchange the test completes by hand, recording how many run at once. */
function gatedExchange() {
  const gates: Array<(r: ExchangeResult) => void> = [];
  const state = { running: 0, maxRunning: 0, calls: [] as ExchangeInput[] };
  const exchange = (input: ExchangeInput): Promise<ExchangeResult> => {
    state.calls.push(input);
    state.running++;
    state.maxRunning = Math.max(state.maxRunning, state.running);
    return new Promise((resolve) =>
      gates.push((r) => {
        state.running--;
        resolve(r);
      }),
    );
  };
  const releaseNext = async (r: ExchangeResult = OK): Promise<void> => {
    for (let i = 0; i < 50 && gates.length === 0; i++) await new Promise((res) => setImmediate(res));
    const gate = gates.shift();
    if (!gate) throw new Error('no exchange waiting');
    gate(r);
  };
  return { exchange, state, releaseNext, waiting: () => gates.length };
}

function makeProber(raw: Record<string, unknown>, over: Partial<ProberOptions> = {}) {
  const events: ProbeEvent[] = [];
  const { log, lines } = captureLogger();
  const prober = new Prober({
    config: configOf(raw),
    apiKeys: new Map([['PROBE_TEST_KEY', API_KEY]]),
    sink: (e) => events.push(e),
    logger: log,
    scheduler: new ManualScheduler(),
    ...over,
  });
  return { prober, events, lines };
}

describe('overlap', () => {
  it('skips and counts a run that fires while the previous probe of the target is still running', async () => {
    const gate = gatedExchange();
    const { prober, events, lines } = makeProber({ targets: [rawTarget(BASE, 'a')] }, { exchange: gate.exchange });
    const first = prober.fire('a');
    const second = await prober.fire('a');
    expect(second).toEqual({ kind: 'skipped', reason: 'overlap' });
    expect(prober.stats.skippedOverlap).toBe(1);
    expect(lines.some((l) => l.includes('previous probe of this target is still running'))).toBe(true);
    await gate.releaseNext();
    expect((await first).kind).toBe('probed');
    const third = prober.fire('a');
    await gate.releaseNext();
    expect((await third).kind).toBe('probed');
    expect(events).toHaveLength(2);
    expect(gate.state.calls).toHaveLength(2);
  });

  it('does not treat another target as an overlap', async () => {
    const gate = gatedExchange();
    const { prober } = makeProber({ targets: [rawTarget(BASE, 'a'), rawTarget(BASE, 'b')] }, { exchange: gate.exchange });
    const runs = [prober.fire('a'), prober.fire('b')];
    await gate.releaseNext();
    await gate.releaseNext();
    expect((await Promise.all(runs)).map((r) => r.kind)).toEqual(['probed', 'probed']);
    expect(prober.stats.skippedOverlap).toBe(0);
  });
});

describe('concurrency cap', () => {
  it('never runs more than max_concurrent probes at once; the rest wait their turn', async () => {
    const gate = gatedExchange();
    const targets = ['a', 'b', 'c', 'd', 'e'].map((n) => rawTarget(BASE, n));
    const { prober, events } = makeProber({ max_concurrent: 2, targets }, { exchange: gate.exchange });
    const runs = targets.map((t) => prober.fire(t.name as string));
    for (let i = 0; i < targets.length; i++) await gate.releaseNext();
    await Promise.all(runs);
    expect(gate.state.maxRunning).toBe(2);
    expect(events).toHaveLength(5);
  });
});

describe('daily cost cap', () => {
  it('pauses probing once the day spend reaches the cap, with a log line, and resumes the next UTC day', async () => {
    const clock = manualClock(Date.UTC(2025, 0, 15, 23, 0, 0));
    const gate = gatedExchange();
    const { prober, events, lines } = makeProber(
      {
        daily_cost_cap_usd: 0.002,
        targets: [rawTarget(BASE, 'a', { price: { input_per_mtok: 1, output_per_mtok: 2 } })],
      },
      { exchange: gate.exchange, now: clock.now },
    );
    // Each probe: 1000 x $1 + 500 x $2 per million = $0.002, the whole cap.
    const first = prober.fire('a');
    await gate.releaseNext();
    expect((await first).kind).toBe('probed');
    expect(events[0]?.cost_usd).toBeCloseTo(0.002, 9);
    expect(await prober.fire('a')).toEqual({ kind: 'skipped', reason: 'cost_cap' });
    expect(prober.stats.skippedCostCap).toBe(1);
    const paused = lines.filter((l) => l.includes('daily cost cap reached'));
    expect(paused).toHaveLength(1);
    expect(paused[0]).toContain('2025-01-16T00:00:00.000Z');

    clock.set(Date.UTC(2025, 0, 16, 0, 0, 1));
    const next = prober.fire('a');
    await gate.releaseNext();
    expect((await next).kind).toBe('probed');
    expect(lines.some((l) => l.includes('probing resumed'))).toBe(true);
    expect(gate.state.calls).toHaveLength(2);
  });

  it('counts only what the provider reported: a failed probe without usage costs nothing', async () => {
    const gate = gatedExchange();
    const { prober, events } = makeProber(
      { daily_cost_cap_usd: 0.001, targets: [rawTarget(BASE, 'a', { price: { input_per_mtok: 1, output_per_mtok: 2 } })] },
      { exchange: gate.exchange },
    );
    const run = prober.fire('a');
    await gate.releaseNext({ ok: false, errorClass: 'server', status: 503, latency: { total: 3 }, reason: 'HTTP 503' });
    await run;
    expect(events[0]?.cost_usd).toBeUndefined();
    expect(prober.costCap.paused()).toBe(false);
  });
});

describe('warm-up after idle', () => {
  it('sends a warm-up reported cold before the first probe and after each idle period only', async () => {
    const clock = manualClock();
    const gate = gatedExchange();
    const { prober, events } = makeProber(
      { targets: [rawTarget(BASE, 'a', { warmup: { after_idle: '10m' } })] },
      { exchange: gate.exchange, now: clock.now },
    );
    const fireAndFinish = async (exchanges: number) => {
      const run = prober.fire('a');
      for (let i = 0; i < exchanges; i++) await gate.releaseNext();
      return run;
    };
    await fireAndFinish(2);
    clock.advance(60_000);
    await fireAndFinish(1);
    clock.advance(11 * 60_000);
    await fireAndFinish(2);
    expect(events.map((e) => e.cold === true)).toEqual([true, false, false, true, false]);
    expect(prober.stats).toMatchObject({ probes: 3, warmups: 2, ok: 3 });
  });
});

describe('stop', () => {
  it('waits for in-flight probes, stops the scheduler, and fires nothing afterwards', async () => {
    const gate = gatedExchange();
    const scheduler = new ManualScheduler();
    const { prober, events } = makeProber({ targets: [rawTarget(BASE, 'a')] }, { exchange: gate.exchange, scheduler });
    prober.start();
    expect(scheduler.added).toEqual(['a']);
    const run = prober.fire('a');
    let stopped = false;
    const stopping = prober.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    await gate.releaseNext();
    await stopping;
    expect((await run).kind).toBe('probed');
    expect(events).toHaveLength(1);
    expect(scheduler.stopped).toBe(true);
    expect(await prober.fire('a')).toEqual({ kind: 'skipped', reason: 'stopped' });
  });

  it('refuses to start when a target key is missing from the environment', () => {
    expect(() => makeProber({ targets: [rawTarget(BASE, 'a')] }, { apiKeys: new Map() })).toThrow(/API key/);
  });
});

describe('cron scheduler', () => {
  it('fires a target at its cron slot plus its jitter offset', async () => {
    const config = configOf({ targets: [rawTarget(BASE, 'a', { interval: '1s', jitter: '200ms' })] });
    const target = config.targets[0]!;
    const scheduler = new CronScheduler({ timezone: 'UTC', logger: silentLogger });
    const fired = await new Promise<number>((resolve) => scheduler.add(target, resolve));
    await scheduler.stop();
    expect(fired % 1000).toBe(target.jitterOffsetMs);
    expect(target.jitterOffsetMs).toBeLessThan(200);
  });
});

describe('on demand (probe on suspicion)', () => {
  it('queues requests for a target whose probe is running instead of skipping them, one at a time, marked trigger suspicion', async () => {
    const gate = gatedExchange();
    const { prober, events } = makeProber({ targets: [rawTarget(BASE, 'a')] }, { exchange: gate.exchange });
    const key = { provider: 'openai', endpoint: 'chat', model: 'a' };
    const scheduled = prober.fire('a');
    const asked = [prober.fireOnDemand(key), prober.fireOnDemand(key)];
    for (let i = 0; i < 3; i++) await gate.releaseNext();
    expect((await scheduled).kind).toBe('probed');
    expect((await Promise.all(asked)).flat().map((r) => r.kind)).toEqual(['probed', 'probed']);
    expect(events.map((e) => e.trigger ?? 'schedule')).toEqual(['schedule', 'suspicion', 'suspicion']);
    expect(gate.state.maxRunning).toBe(1);
    expect(prober.stats).toMatchObject({ skippedOverlap: 0, onDemand: 2, probes: 3 });
  });
});

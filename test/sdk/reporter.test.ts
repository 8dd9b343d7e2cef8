import { afterEach, describe, expect, it } from 'vitest';
import { createBreakerbox, TelemetryReporter, type TelemetryEvent, type WindowEvent } from '../../sdk/index.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startReceiver } from './telemetry-receiver.ts';
import { windowEvent } from '../server/helpers.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.close();
  rx = undefined;
});

const KEY = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function transition(i: number): TelemetryEvent {
  return { type: 'transition', ts: 1_750_000_000_000 + i, key: KEY, from: 'closed', to: 'open', reason: 'error_rate' };
}

function reporter(url: string, over: Partial<ConstructorParameters<typeof TelemetryReporter>[0]> = {}, source: TelemetryEvent[][] = []) {
  return new TelemetryReporter(
    { url, token: 'tok', service: 'svc', instance: 'i-1', intervalMs: 60_000, coalesceMs: 10, backoffMs: 20, maxBackoffMs: 100, ...over },
    { collect: () => source.shift() ?? [] },
  );
}

describe('TelemetryReporter', () => {
  it('pushes gzip-compressed protocol v1 batches with the ingest token and unique batch ids', async () => {
    rx = await startReceiver();
    const rep = reporter(rx.url);
    rep.push(transition(1), true);
    await sleep(100);
    rep.push(transition(2), true);
    await rep.close();
    expect(rx.received).toHaveLength(2);
    for (const r of rx.received) {
      expect(r.problems).toEqual([]);
      expect(r.encoding).toBe('gzip');
      expect(r.authorization).toBe('Bearer tok');
      expect(r.batch.source).toEqual({ service: 'svc', instance: 'i-1', sdk: 'breakerbox-js/0.1.0' });
    }
    expect(new Set(rx.received.map((r) => r.batch.batch_id)).size).toBe(2);
    expect(rep.stats()).toMatchObject({ sent: 2, dropped: 0, buffered: 0, batchesSent: 2 });
  });

  it('keeps sending after an interval that had nothing to send', async () => {
    rx = await startReceiver();
    const windows: TelemetryEvent[][] = [[], [], [transition(1)], [], [transition(2)]];
    const rep = reporter(rx.url, { intervalMs: 40 }, windows);
    const deadline = Date.now() + 3_000;
    while (rx.received.length < 2 && Date.now() < deadline) await sleep(20);
    await rep.close();
    expect(rx.received.map((r) => r.batch.events.length)).toEqual([1, 1]);
    expect(rep.stats()).toMatchObject({ sent: 2, dropped: 0 });
  });

  it('retries a refused push with the same batch id after the Retry-After it was given', async () => {
    rx = await startReceiver([{ status: 429, retryAfter: '0.3' }, { status: 503 }]);
    const rep = reporter(rx.url);
    rep.push(transition(1), true);
    await sleep(700);
    await rep.close();
    const ids = rx.received.map((r) => r.batch.batch_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    expect(rx.received[1]!.ts - rx.received[0]!.ts).toBeGreaterThanOrEqual(290);
    expect(rep.stats()).toMatchObject({ sent: 1, failures: 2 });
  });

  it('drops the oldest events beyond its buffer cap and reports the drop count once the collector answers', async () => {
    rx = await startReceiver();
    const rep = reporter(rx.url, { maxBufferedEvents: 5, coalesceMs: 10_000 });
    for (let i = 0; i < 12; i++) rep.push(transition(i));
    expect(rep.stats()).toMatchObject({ buffered: 5, dropped: 7 });
    await rep.flush();
    expect(rx.received[0]!.batch.events.map((e) => (e as { ts: number }).ts - 1_750_000_000_000)).toEqual([7, 8, 9, 10, 11]);
    expect(rx.received[0]!.batch.dropped_events).toBe(7);
    rep.push(transition(99));
    await rep.close();
    expect(rx.received[1]!.batch.dropped_events).toBeUndefined();
  });

  it('drops a batch the collector refuses as invalid instead of resending it forever', async () => {
    rx = await startReceiver([{ status: 400 }]);
    const rep = reporter(rx.url);
    const errors: unknown[] = [];
    rep.onError((e) => errors.push(e));
    rep.push(transition(1), true);
    await sleep(100);
    await rep.close();
    expect(rx.received).toHaveLength(1);
    expect(rep.stats()).toMatchObject({ sent: 0, dropped: 1, buffered: 0 });
    expect(errors).toEqual([expect.objectContaining({ status: 400, dropped: true })]);
  });

  it('splits a batch the collector finds too large', async () => {
    rx = await startReceiver([{ status: 413 }]);
    const rep = reporter(rx.url, { coalesceMs: 10_000 });
    for (let i = 0; i < 4; i++) rep.push(transition(i));
    await rep.close();
    expect(rx.received.map((r) => r.batch.events.length)).toEqual([4, 2, 2]);
    expect(rep.stats().sent).toBe(4);
  });

  it('aggregates windows per interval and does not block close on a collector that never answers', async () => {
    rx = await startReceiver(['hang']);
    const windowLike = [[{ type: 'tasks', start: 1, end: 2, operation: 'op', completed: 1, failed: 0, degraded: 0, attempts: 1, cost_usd: 0, levels: { '0': 1 }, fallback: { invoked: 0, failed: 0 } } as TelemetryEvent]];
    const rep = reporter(rx.url, { intervalMs: 30, requestTimeoutMs: 100 }, windowLike);
    await sleep(80);
    const started = Date.now();
    await rep.close(150);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(rx.received[0]!.batch.events[0]!.type).toBe('tasks');
  });
});

describe('SDK telemetry end to end (local receiver)', () => {
  it('sends a window cut early at once, without waiting for the interval: in the instance batches, or with a drill id in that drill’s batches', async () => {
    rx = await startReceiver();
    const rep = reporter(rx.url, { intervalMs: 3_600_000, coalesceMs: 3_600_000 });
    const w = (model: string) => windowEvent({ key: { ...KEY, model } });
    rep.cutNow([w('onset')]);
    rep.cutNow([w('step-1'), w('step-1b')], 'drill-7');
    rep.cutNow([], 'drill-7'); // nothing cut: nothing sent
    const deadline = Date.now() + 5_000;
    while (rx.received.length < 2 && Date.now() < deadline) await sleep(10);
    const sent = rx.received.map((r) => ({ drill: r.batch.drill_id, models: r.batch.events.map((e) => (e as WindowEvent).key.model) }));
    expect(sent).toEqual(expect.arrayContaining([{ drill: undefined, models: ['onset'] }, { drill: 'drill-7', models: ['step-1', 'step-1b'] }]));
    expect(sent).toHaveLength(2);
    expect(rx.received.every((r) => r.problems.length === 0)).toBe(true);
    await rep.close();
  });

  it('sends each breaker’s first state, its config, its transitions at once, its window at once on a failure onset and otherwise per interval', async () => {
    rx = await startReceiver();
    const bb = createBreakerbox({
      defaults: { breaker: { minCalls: 2 }, retry: { maxAttempts: 1 } },
      telemetry: { url: rx.url, service: 'svc', intervalMs: 60_000, coalesceMs: 20 },
    });
    const fail = () => Promise.reject(Object.assign(new Error('boom'), { status: 503 }));
    for (let i = 0; i < 4; i++) await bb.execute(KEY, fail).catch(() => undefined);
    await sleep(150);
    const early = rx.received.flatMap((r) => r.batch.events);
    expect(early.filter((e) => e.type === 'transition').map((e) => (e as { from: unknown }).from + '>' + (e as { to: string }).to)).toEqual(['null>closed', 'closed>open']);
    expect(early.find((e) => e.type === 'config')).toMatchObject({ key: KEY, settings: { min_calls: 2, max_concurrent: 100 } });
    // The second provider-side failure is the window's onset: that window went out at once, not at the 60 s interval.
    expect(early.filter((e) => e.type === 'window')).toEqual([expect.objectContaining({ key: KEY, calls: 2, errors: { server: 2 }, cold_excluded: 1 })]);
    await bb.close();
    const windows = rx.received.flatMap((r) => r.batch.events).filter((e) => e.type === 'window');
    // 4 calls: the first is a cold start (kept out of the trip statistics), the third trips it, the fourth is refused.
    expect(windows).toHaveLength(2);
    expect(windows[1]).toMatchObject({ key: KEY, calls: 1, errors: { server: 1 }, short_circuited: 1, cold_excluded: 0 });
    expect(rx.received.every((r) => r.problems.length === 0)).toBe(true);
  });

  it('reports at most one window early per interval while failures go on, again only after a window that was not failing, and never for client-side errors', async () => {
    rx = await startReceiver();
    const clock = new ManualClock(Date.now());
    const bb = createBreakerbox({
      clock: { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms), clearTimeout: (h: unknown) => clock.clearTimeout(h as never) },
      // The breaker never trips here: this is about what is reported, not what is refused.
      defaults: { breaker: { minCalls: 1_000, consecutiveFailures: 0 }, retry: { maxAttempts: 1 } },
      telemetry: { url: rx.url, service: 'svc', intervalMs: 10_000, coalesceMs: 1 },
    });
    const windowsSent = () => rx!.received.flatMap((r) => r.batch.events).filter((e) => e.type === 'window') as WindowEvent[];
    const run = (status: number | null, n: number) => Promise.all(Array.from({ length: n }, () => bb.execute(KEY, () => (status === null ? Promise.resolve('ok') : Promise.reject(Object.assign(new Error('x'), { status })))).catch(() => undefined)));
    const settle = async (count: number) => {
      await clock.advance(1);
      const deadline = Date.now() + 5_000;
      while (windowsSent().length < count && Date.now() < deadline) await sleep(10);
    };
    await run(401, 6); // our own fault: no onset
    await run(null, 4);
    await settle(0);
    expect(windowsSent()).toHaveLength(0);
    await run(503, 10); // onset at the second: one early window, the other 8 wait for the interval
    await settle(1);
    expect(windowsSent()).toEqual([expect.objectContaining({ calls: 12, errors: { auth: 6, server: 2 } })]);
    await clock.advance(10_000); // the interval: the rest of that window
    await settle(2);
    await run(503, 10); // still failing: the previous window failed, so no early report
    await clock.advance(10_000);
    await settle(3);
    expect(windowsSent().map((w) => w.calls)).toEqual([12, 8, 10]);
    await run(null, 5); // a healthy window re-arms
    await clock.advance(10_000);
    await settle(4);
    await run(503, 2);
    await settle(5);
    expect(windowsSent().map((w) => [w.calls, w.errors.server ?? 0])).toEqual([[12, 2], [8, 8], [10, 10], [5, 0], [2, 2]]);
    await bb.close();
  });
});

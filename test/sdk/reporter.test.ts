import { afterEach, describe, expect, it } from 'vitest';
import { createBreakerbox, TelemetryReporter, type TelemetryEvent } from '../../sdk/index.ts';
import { startReceiver } from './telemetry-receiver.ts';

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
  it('sends each breaker’s first state, its config, its transitions at once and its windows per interval', async () => {
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
    expect(early.some((e) => e.type === 'window')).toBe(false);
    await bb.close();
    const w = rx.received.flatMap((r) => r.batch.events).find((e) => e.type === 'window');
    // 4 calls: the first is a cold start (kept out of the trip statistics), the third trips it, the fourth is refused.
    expect(w).toMatchObject({ key: KEY, calls: 3, errors: { server: 3 }, short_circuited: 1, cold_excluded: 1 });
    expect(rx.received.every((r) => r.problems.length === 0)).toBe(true);
  });
});

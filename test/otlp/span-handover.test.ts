/**
 * Spans count at once; a metrics delta of the same service, instance and key stores only what
 * the spans in its interval did not count (`SpanHandover`).
 */
import { describe, expect, it } from 'vitest';
import type { WindowEvent } from '@breakerbox/protocol';
import { SpanHandover } from '../../server/otlp/span-handover.ts';

const T = Date.UTC(2026, 11, 3, 12);
const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
function metrics(start: number, end: number, calls: number, errors: WindowEvent['errors'] = {}): WindowEvent {
  const failed = Object.values(errors).reduce((a, b) => a + (b ?? 0), 0);
  return {
    type: 'window', start, end, key: KEY, calls, ok: calls - failed, slow: 0, errors, rejected: 0, short_circuited: 0, retries: 0, cold_excluded: 0,
    half_open: { ok: 0, failed: 0 }, latency_ms: { bounds: [100, 1000], counts: [calls, 0, 0] }, input_tokens: calls * 10, output_tokens: calls * 5, cost_usd: calls * 0.001,
  };
}

describe('SpanHandover', () => {
  it('stores nothing of a metrics delta whose calls the spans counted, and skips later spans it covered', () => {
    const h = new SpanHandover();
    for (let i = 0; i < 10; i++) h.counted('s', T + i * 1000, 1, i < 3 ? 'server' : null);
    expect(h.remainder('s', metrics(T - 5_000, T + 60_000, 10, { server: 3 }))).toBeUndefined();
    expect(h.covered('s', T + 59_000)).toBe(true);
    expect(h.covered('s', T + 60_500)).toBe(true); // clock drift between the SDK's span and metric clocks
    expect(h.covered('s', T + 61_500)).toBe(false);
  });

  it('stores what sampled spans missed: calls, failures and the classes the metrics have more of', () => {
    const h = new SpanHandover();
    // A quarter of 20 calls sampled: 5 spans, 1 failed as quota.
    for (let i = 0; i < 5; i++) h.counted('s', T + i * 1000, 1, i === 0 ? 'quota' : null);
    const rest = h.remainder('s', metrics(T, T + 60_000, 20, { rate_limit: 4, server: 2 }))!;
    expect(rest).toMatchObject({ calls: 15, ok: 10, errors: { rate_limit: 3, server: 2 }, input_tokens: 150 });
    expect(rest.latency_ms.counts.reduce((a, b) => a + b, 0)).toBe(15);
  });

  it('passes a metrics delta whole when no span was counted in its interval, and keeps spans after it for the next', () => {
    const h = new SpanHandover();
    h.counted('s', T + 70_000, 1, null);
    expect(h.remainder('s', metrics(T, T + 60_000, 4))).toMatchObject({ calls: 4 });
    expect(h.remainder('s', metrics(T + 60_000, T + 120_000, 1))).toBeUndefined();
  });

  it('keeps series apart and forgets the least recently used past its cap', () => {
    const h = new SpanHandover(2);
    h.counted('a', T, 1, null);
    h.counted('b', T, 1, null);
    h.counted('c', T, 1, null);
    expect(h.size).toBe(2);
    expect(h.remainder('a', metrics(T - 1000, T + 1000, 1))).toMatchObject({ calls: 1 });
  });
});

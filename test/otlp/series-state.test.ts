import { describe, expect, it } from 'vitest';
import { CumulativeSeries } from '../../server/otlp/series-state.ts';
import type { HistogramPoint } from '../../server/otlp/model.ts';

const BOOT = 1_764_000_000_000;
const point = (startMs: number, timeMs: number, counts: number[]): HistogramPoint => ({
  attributes: {}, startMs, timeMs, count: counts.reduce((a, b) => a + b, 0), sum: counts.reduce((a, b) => a + b, 0) * 0.1,
  bounds: counts.slice(1).map((_, i) => i + 1), counts, flags: 0,
});

function table(options: Partial<{ maxSeries: number; idleMs: number }> = {}) {
  let now = BOOT;
  const series = new CumulativeSeries({ maxSeries: options.maxSeries ?? 100, idleMs: options.idleMs ?? 600_000, startedAt: BOOT }, () => now);
  const push = (id: string, p: HistogramPoint) => {
    const staged = series.stage();
    const d = staged.delta(id, p);
    staged.commit();
    return d;
  };
  return { series, push, advance: (ms: number) => (now += ms) };
}

describe('cumulative → delta per series', () => {
  it('counts a series that began while the collector was up from its start, then in steps', () => {
    const { push } = table();
    expect(push('a', point(BOOT + 1_000, BOOT + 60_000, [2, 3]))).toMatchObject({ startMs: BOOT + 1_000, timeMs: BOOT + 60_000, count: 5, counts: [2, 3] });
    expect(push('a', point(BOOT + 1_000, BOOT + 120_000, [4, 3]))).toMatchObject({ startMs: BOOT + 60_000, timeMs: BOOT + 120_000, count: 2, counts: [2, 0] });
  });

  it('takes a series that began before the collector as a baseline only', () => {
    const { push } = table();
    expect(push('a', point(BOOT - 3_600_000, BOOT + 60_000, [100, 50]))).toBeUndefined();
    expect(push('a', point(BOOT - 3_600_000, BOOT + 120_000, [101, 50]))).toMatchObject({ count: 1, counts: [1, 0] });
  });

  it('ignores a repeated or older point (a retried export)', () => {
    const { push } = table();
    push('a', point(BOOT + 1, BOOT + 60_000, [1, 1]));
    expect(push('a', point(BOOT + 1, BOOT + 60_000, [1, 1]))).toBeUndefined();
    expect(push('a', point(BOOT + 1, BOOT + 30_000, [1, 0]))).toBeUndefined();
  });

  it('reads a count that falls, or bounds that change, as a reset: the new value is the delta', () => {
    const { push } = table();
    push('a', point(BOOT + 1, BOOT + 60_000, [10, 10]));
    expect(push('a', point(BOOT + 1, BOOT + 120_000, [3, 0]))).toMatchObject({ startMs: BOOT + 60_000, count: 3, counts: [3, 0] });
    expect(push('a', point(BOOT + 1, BOOT + 180_000, [3, 1, 1]))).toMatchObject({ count: 5, counts: [3, 1, 1] });
  });

  it('applies nothing of a request that is not committed', () => {
    const { series, push } = table();
    const staged = series.stage();
    expect(staged.delta('a', point(BOOT + 1, BOOT + 60_000, [1, 1]))?.count).toBe(2);
    // never committed (the store refused the batch): the next export counts from the start again
    expect(push('a', point(BOOT + 1, BOOT + 120_000, [2, 1]))).toMatchObject({ startMs: BOOT + 1, count: 3 });
  });

  it('holds at most maxSeries series, dropping the least recently seen', () => {
    const { series, push } = table({ maxSeries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) push(id, point(BOOT + 1, BOOT + 60_000, [1, 0]));
    expect(series.size).toBe(3);
    // 'a' was dropped: its next point is a first point again (counted whole, since it began after boot)
    expect(push('a', point(BOOT + 1, BOOT + 120_000, [2, 0]))).toMatchObject({ count: 2, startMs: BOOT + 1 });
    expect(push('d', point(BOOT + 1, BOOT + 120_000, [2, 0]))).toMatchObject({ count: 1 });
  });

  it('forgets series idle for longer than idleMs', () => {
    const { series, push, advance } = table({ idleMs: 120_000 });
    push('old', point(BOOT + 1, BOOT + 60_000, [1, 0]));
    advance(100_000);
    push('fresh', point(BOOT + 1, BOOT + 160_000, [1, 0]));
    advance(100_000); // 'old' idle 200 s, 'fresh' 100 s
    push('other', point(BOOT + 1, BOOT + 260_000, [1, 0]));
    expect(series.size).toBe(2);
  });
});

/**
 * The trigger's incremental memory of client windows: fed in any order and pruned to the
 * lookback, it yields each instance's run of failing windows at its tail — the same run a
 * full re-read of the lookback, sorted by end, gives.
 */
import { describe, expect, it } from 'vitest';
import type { RecentWindow } from '../../server/storage/storage.ts';
import { WindowTails } from '../../server/suspicion/window-tails.ts';

const win = (end: number, server: number, o: Partial<RecentWindow> = {}): RecentWindow => ({
  keyId: 1, sourceId: 1, start: end - 10, end, calls: 10, errors: server > 0 ? { server } : {}, ...o,
});
const runsOf = (tails: WindowTails) => [...tails.runs()].map((r) => [r.keyId, r.windows.map((w) => w.end)]);

describe('window tails', () => {
  it('holds the failing windows after the latest healthy one, oldest end first', () => {
    const tails = new WindowTails(0.2);
    for (const w of [win(10, 5), win(20, 0), win(40, 3), win(30, 2)]) tails.add(w);
    expect(runsOf(tails)).toEqual([[1, [30, 40]]]);
  });

  it('ends a run with a healthy window, even one that arrives after the failures', () => {
    const tails = new WindowTails(0.2);
    tails.add(win(10, 5));
    tails.add(win(20, 5));
    tails.add(win(30, 0));
    expect(runsOf(tails)).toEqual([]);
    // A late failing window older than that healthy one changes nothing.
    tails.add(win(25, 9));
    expect(runsOf(tails)).toEqual([]);
  });

  it('counts a resent window once and keeps instances apart', () => {
    const tails = new WindowTails(0.2);
    tails.add(win(10, 5));
    tails.add(win(10, 6));
    tails.add(win(10, 4, { sourceId: 2 }));
    expect(runsOf(tails)).toEqual([[1, [10]], [1, [10]]]);
    expect([...tails.runs()][0]!.windows[0]!.errors).toEqual({ server: 6 });
  });

  it('treats provider-side classes only, and windows without calls, as the rule says', () => {
    const tails = new WindowTails(0.5);
    expect(tails.failing(win(10, 0, { errors: { quota: 9 } }))).toBe(false);
    expect(tails.failing(win(10, 0, { errors: { timeout: 5 } }))).toBe(true);
    expect(tails.failing(win(10, 0, { calls: 0, errors: { server: 1 } }))).toBe(false);
  });

  it('forgets what ended before the lookback, and instances left with nothing', () => {
    const tails = new WindowTails(0.2);
    tails.add(win(10, 5));
    tails.add(win(20, 5));
    tails.add(win(15, 0, { sourceId: 2 }));
    tails.prune(15);
    expect(runsOf(tails)).toEqual([[1, [20]]]);
    expect(tails.size).toBe(2);
    tails.prune(21);
    expect(tails.size).toBe(0);
  });

  it('gives the run a sorted re-read of the lookback gives, however the windows arrive', () => {
    // A small deterministic generator: the same cases every run.
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const ends = [...new Set(Array.from({ length: 12 }, () => 10 * Math.floor(next() * 30)))];
      const windows = ends.map((end) => win(end, next() < 0.6 ? 5 : 0, { sourceId: 1 + Math.floor(next() * 2) }));
      const since = 10 * Math.floor(next() * 15);
      const tails = new WindowTails(0.2);
      // Arrival in two reads, each in its own order, with a prune in between, as the trigger does.
      const cut = Math.floor(next() * windows.length);
      for (const w of windows.slice(0, cut)) if (w.end >= since) tails.add(w);
      tails.prune(since);
      for (const w of windows.slice(cut)) if (w.end >= since) tails.add(w);
      tails.prune(since);

      const expected: [number, number[]][] = [];
      for (const source of [1, 2]) {
        const mine = windows.filter((w) => w.sourceId === source && w.end >= since).sort((a, b) => a.end - b.end);
        const run: number[] = [];
        for (let i = mine.length - 1; i >= 0 && tails.failing(mine[i]!); i--) run.unshift(mine[i]!.end);
        if (run.length > 0) expected.push([1, run]);
      }
      const got = [...tails.runs()].map((r) => [r.keyId, r.windows.map((w) => w.end)] as [number, number[]]);
      const order = (list: [number, number[]][]) => list.map((r) => JSON.stringify(r)).sort();
      expect(order(got)).toEqual(order(expected));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { watchChanges } from '../../server/storage/change-feed.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import { createMinuteWindow } from '../../server/verdicts/minute-window.ts';
import { floorMinute } from '../../server/verdicts/window.ts';
import { tempDir } from '../server/helpers.ts';
import { RETENTION } from '../support/postgres-cluster.ts';
import { MIN, probes, random, transition, windows } from './support.ts';

const KEYS: BreakerKey[] = [
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
  { provider: 'anthropic', endpoint: 'chat', model: 'claude-sonnet-4', region: 'eu' },
  { provider: 'mistral', endpoint: 'chat', model: 'mistral-large' },
];
const SOURCES = [{ service: 'api', instance: 'a' }, { service: 'api', instance: 'b' }, { service: 'jobs', instance: 'c' }];


// Float64Arrays compare by their numbers; maps keep their order (the evidence lists instances in it).
const plain = (v: unknown): unknown =>
  v instanceof Map ? [...v].map(([k, x]) => [k, plain(x)]) : v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v;

describe('the minutes kept in memory read what the rollup tables hold', () => {
  // Fractional costs: float sums whose compensation terms are not zero (the kept folds must continue them as SQLite does).
  it('over random writes: minute edges, late data inside a kept minute, data ahead of the clock, pruning', { timeout: 60_000 }, async () => {
    const tmp = tempDir();
    try {
      for (const seed of [11, 12]) {
        const pick = random(seed);
        const clock = manualClock(Date.UTC(2026, 0, 5, 10, 0, 7));
        // Rollups kept a day: a prune after the clock jumps deletes per-minute rows.
        const raw = await createSqliteStorage({ path: join(tmp.dir, `mw-${seed}.db`), clock, retention: { ...RETENTION, rawDays: 1, rollupDays: 1 }, retryAfterS: 1 });
        const { storage, feed } = watchChanges(raw);
        const kept = createMinuteWindow(storage.rollups, feed, 16 * MIN);
        const what = { late: 0, ahead: 0, pruned: 0, edges: 0 };
        for (let step = 0; step < 80; step++) {
          const r = pick();
          const now = clock.now();
          if (r < 0.25) {
            const before = floorMinute(now);
            clock.advance(Math.floor(pick() * 50_000));
            if (floorMinute(clock.now()) !== before) what.edges++;
          } else if (r < 0.3) {
            clock.advance(36 * 60 * MIN);
            await storage.retention.prune(clock.now());
            what.pruned++;
          } else {
            const key = KEYS[Math.floor(pick() * KEYS.length)]!;
            const source = SOURCES[Math.floor(pick() * SOURCES.length)]!;
            // Late by up to 14 minutes (inside the kept minutes), or a minute ahead of the clock.
            const shift = pick() < 0.3 ? -Math.floor(pick() * 14) * MIN : pick() < 0.1 ? MIN : 0;
            if (shift < 0) what.late++;
            if (shift > 0) what.ahead++;
            const at = now + shift;
            const q = pick();
            const events: TelemetryEvent[] =
              q < 0.5 ? windows(key, at - 20_000, at, { calls: 20, errors: { server: Math.floor(pick() * 5) }, slow: 2 }).map((w) => ({ ...w, cost_usd: 0.1 + pick() / 3 }))
                : q < 0.8 ? probes(key, pick() < 0.5 ? 'eu' : 'us', at - MIN, at, pick() < 0.3 ? 'error' : 'ok')
                  : [transition(key, at, 'closed', 'open')];
            await storage.telemetry.insertBatch({ batch_id: `b-${seed}-${step}`, source: { ...source, sdk: 'test/0' }, events }, now);
          }
          for (const span of [15 * MIN, 5 * MIN]) {
            const to = clock.now();
            const first = floorMinute(to - span);
            const got = await kept.read(first, to);
            const want = { byService: await raw.rollups.keyServiceSums(first, to), reporting: await raw.rollups.keySources(first, to), ...(await raw.rollups.probesBoth(first, to)) };
            const context = `seed ${seed}, step ${step}, span ${span / MIN} min`;
            expect(got, context).not.toBeNull();
            expect(plain(got!.byService), context).toEqual(plain(want.byService));
            expect(plain(got!.reporting), context).toEqual(plain(want.reporting));
            expect(plain(got!.probeSums), context).toEqual(plain(want.sums));
            expect(plain(got!.recent), context).toEqual(plain(want.recent));
          }
        }
        // Not vacuous: the run crossed minutes, wrote late and early data, and pruned.
        expect(Math.min(what.late, what.ahead, what.pruned, what.edges), JSON.stringify(what)).toBeGreaterThan(0);
        expect(kept.size().minutes).toBeGreaterThan(0);
        await raw.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('answers nothing for a span longer than the minutes it keeps (the caller reads the storage)', async () => {
    const tmp = tempDir();
    try {
      const clock = manualClock(Date.UTC(2026, 0, 5, 10, 0, 7));
      const raw = await createSqliteStorage({ path: join(tmp.dir, 'mw.db'), clock, retention: RETENTION, retryAfterS: 1 });
      const { storage, feed } = watchChanges(raw);
      const kept = createMinuteWindow(storage.rollups, feed, 16 * MIN);
      const to = clock.now();
      expect(await kept.read(floorMinute(to - 15 * MIN), to)).not.toBeNull();
      expect(await kept.read(floorMinute(to - 60 * MIN), to)).toBeNull();
      await raw.close();
    } finally {
      tmp.cleanup();
    }
  });
});

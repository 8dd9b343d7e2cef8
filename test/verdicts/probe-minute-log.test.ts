import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock, type ManualServerClock } from '../../server/clock.ts';
import { watchChanges } from '../../server/storage/change-feed.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import { createProbeMinuteLog, withProbeMinuteLog } from '../../server/verdicts/probe-minute-log.ts';
import { floorMinute } from '../../server/verdicts/window.ts';
import { tempDir } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import type { Storage } from '../../server/storage/storage.ts';
import { MIN, probes, random, windows } from './support.ts';

const KEYS: BreakerKey[] = [
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
  { provider: 'anthropic', endpoint: 'chat', model: 'claude-sonnet-4', region: 'eu' },
  { provider: 'mistral', endpoint: 'chat', model: 'mistral-large' },
];
const LOCATIONS = ['us-east', 'eu', 'ap-south'];
const PROBE_RETENTION = { ...RETENTION, rawDays: 1, rollupDays: 1 };
const postgres = usePostgresCluster();
const byPair = <T extends { keyId: number; location: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.keyId - b.keyId || (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));

/**
 * Random probe writes (minute edges, late probes, probes ahead of the clock, pruning): the kept
 * probe minutes answer what the storage answers. `collectors: 2`: a second storage on the same
 * database makes half the writes (PostgreSQL: they reach the feed through the change log).
 */
async function probeProperty(open: (clock: ManualServerClock, seed: number) => Promise<Storage>, seed: number, collectors: 1 | 2 = 1) {
  const pick = random(seed);
  const clock = manualClock(Date.UTC(2026, 0, 5, 10, 0, 7));
  const raw = await open(clock, seed);
  const other = collectors === 2 ? await open(clock, seed) : undefined;
  const { storage, feed } = watchChanges(raw);
  // probeOutcomes is unordered: SQLite's scan gives the kept minutes' order (compared as is), PostgreSQL's its own.
  type Outcome = { keyId: number; location: string; minute: number };
  const inOrder = <T extends Outcome>(rows: T[] | null) =>
    rows && raw.engine === 'postgres' ? [...rows].sort((a, b) => a.keyId - b.keyId || (a.location < b.location ? -1 : a.location > b.location ? 1 : 0) || a.minute - b.minute) : rows;
  // Activity over 30 minutes, outcomes over 12: the alert rules' 6 h and 1 h, shrunk.
  const log = createProbeMinuteLog(storage.rollups, feed, 32 * MIN, 14 * MIN);
  const rollups = withProbeMinuteLog(storage.rollups, log);
  const what = { late: 0, lateOld: 0, ahead: 0, pruned: 0, edges: 0, rows: 0 };
  for (let step = 0; step < 120; step++) {
    const r = pick();
    const now = clock.now();
    if (r < 0.25) {
      const before = floorMinute(now);
      clock.advance(Math.floor(pick() * 90_000));
      if (floorMinute(clock.now()) !== before) what.edges++;
    } else if (r < 0.28) {
      clock.advance(36 * 60 * MIN);
      await storage.retention.prune(clock.now());
      what.pruned++;
    } else {
      const key = KEYS[Math.floor(pick() * KEYS.length)]!;
      const location = LOCATIONS[Math.floor(pick() * LOCATIONS.length)]!;
      // Late by up to 28 minutes (past the kept counts, inside the kept activity), or a minute ahead.
      const shift = pick() < 0.3 ? -Math.floor(pick() * 28) * MIN : pick() < 0.1 ? MIN : 0;
      if (shift < 0) what.late++;
      if (shift < -14 * MIN) what.lateOld++;
      if (shift > 0) what.ahead++;
      const at = now + shift;
      const events: TelemetryEvent[] = pick() < 0.8
        ? probes(key, location, at - Math.ceil(pick() * 3) * MIN, at, pick() < 0.3 ? 'error' : pick() < 0.1 ? 'slow' : 'ok')
        : windows(key, at - 20_000, at, { calls: 20 });
      // With a second collector, half the writes go through it: this process's own feed never sees them.
      const writer = other && pick() < 0.5 ? other : storage;
      await writer.telemetry.insertBatch({ batch_id: `b-${seed}-${step}`, source: { service: 'prober', instance: location, sdk: 'test/0' }, events }, now);
    }
    const now2 = clock.now();
    const context = `seed ${seed}, step ${step}`;
    // probe_failing's two reads: the recent minutes, then the older ones but for settled pairs.
    const first = floorMinute(now2 - 12 * MIN);
    const split = floorMinute(now2) - 4 * MIN;
    const recent = await log.probeOutcomes(split, now2);
    expect(recent, context).not.toBeNull();
    expect(inOrder(recent), context).toEqual(inOrder(await raw.rollups.probeOutcomes(split, now2)));
    const except = byPair(recent!).filter((_, i) => i % 2 === 0).map(({ keyId, location }) => ({ keyId, location }));
    expect(inOrder(await log.probeOutcomes(first, split - 1, except)), context).toEqual(inOrder(await raw.rollups.probeOutcomes(first, split - 1, except)));
    what.rows += recent!.length;
    // An older span than the latest read (its oldest minutes kept without their counts): read again, the same rows.
    const older = floorMinute(now2 - 20 * MIN);
    expect(inOrder(await log.probeOutcomes(older, older + 11 * MIN)), context).toEqual(inOrder(await raw.rollups.probeOutcomes(older, older + 11 * MIN)));
    // prober_silent's read.
    const from = floorMinute(now2 - 30 * MIN);
    const activity = await log.probeActivity(from, now2);
    expect(activity, context).not.toBeNull();
    expect(activity, context).toEqual(byPair(await raw.rollups.probeActivity(from, now2)));
    // Through the rollups part, a longer span than kept reads the storage.
    expect(byPair(await rollups.probeActivity(floorMinute(now2 - 90 * MIN), now2)), context).toEqual(byPair(await raw.rollups.probeActivity(floorMinute(now2 - 90 * MIN), now2)));
  }
  // Not vacuous: the run crossed minutes, wrote late (past the kept counts too) and early probes, pruned, and read rows.
  expect(Math.min(what.late, what.lateOld, what.ahead, what.pruned, what.edges, what.rows), JSON.stringify(what)).toBeGreaterThan(0);
  expect(log.size().rows).toBeGreaterThan(0);
  await raw.close();
  await other?.close();
}

describe('the probe minutes kept in memory read what probe_minutes holds', () => {
  it('probe outcomes and activity over random writes: minute edges, late probes, probes ahead of the clock, pruning', { timeout: 60_000 }, async () => {
    const tmp = tempDir();
    try {
      for (const seed of [21, 22]) await probeProperty(async (clock) => createSqliteStorage({ path: join(tmp.dir, `pl-${seed}.db`), clock, retention: PROBE_RETENTION, retryAfterS: 1 }), seed);
    } finally {
      tmp.cleanup();
    }
  });

  it.skipIf(!postgres.available)('on PostgreSQL, with a second collector writing half the probes', { timeout: 120_000 }, async () => {
    for (const seed of [23, 24]) {
      const url = await postgres.database(`probe_log_${seed}`);
      await probeProperty(async (clock) => createPostgresStorage({ url, clock, retention: PROBE_RETENTION, retryAfterS: 1 }), seed, 2);
    }
  });

  it('answers nothing for a span longer than the minutes it keeps (the rollups part reads the storage)', async () => {
    const tmp = tempDir();
    try {
      const clock = manualClock(Date.UTC(2026, 0, 5, 10, 0, 7));
      const raw = await createSqliteStorage({ path: join(tmp.dir, 'pl.db'), clock, retention: RETENTION, retryAfterS: 1 });
      const { storage, feed } = watchChanges(raw);
      const log = createProbeMinuteLog(storage.rollups, feed, 32 * MIN, 14 * MIN);
      const to = clock.now();
      expect(await log.probeOutcomes(floorMinute(to - 12 * MIN), to)).not.toBeNull();
      expect(await log.probeOutcomes(floorMinute(to - 20 * MIN), to)).toBeNull();
      expect(await log.probeActivity(floorMinute(to - 30 * MIN), to)).not.toBeNull();
      expect(await log.probeActivity(floorMinute(to - 60 * MIN), to)).toBeNull();
      await raw.close();
    } finally {
      tmp.cleanup();
    }
  });
});

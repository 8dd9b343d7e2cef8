import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock, type ManualServerClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { watchChanges } from '../../server/storage/change-feed.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import type { Storage } from '../../server/storage/storage.ts';
import { createVerdictEngine, toVerdictEntry, type VerdictEngine } from '../../server/verdicts/verdict-engine.ts';
import type { KeyAnalysis } from '../../server/verdicts/analyse.ts';
import { tempDir } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';
import { MIN, probes, random, transition, windows } from './support.ts';

const postgres = usePostgresCluster();
const DAY = 86_400_000;
// Raw events older than a day are pruned: a pruned transition changes a breaker's state before the window.
const retention = { ...RETENTION, rawDays: 1 };
const thresholds = { ...loadConfig({ env: {} }).verdicts, provider_aliases: { 'vllm.local:8000': 'vllm' } };

const KEYS: BreakerKey[] = [
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini', region: 'us-east' },
  { provider: 'anthropic', endpoint: 'chat', model: 'claude-sonnet-4' },
  { provider: 'vllm', endpoint: 'chat', model: 'llama-3.1-8b' },
  { provider: 'vllm.local:8000', endpoint: 'chat', model: 'llama-3.1-8b' },
  { provider: 'mistral', endpoint: 'chat', model: 'mistral-large', region: 'eu-west' },
];
const SOURCES = [{ service: 'api', instance: 'a' }, { service: 'api', instance: 'b' }, { service: 'jobs', instance: 'c' }];
const WINDOWS_MS = [15 * MIN, 60 * MIN];


/** What every consumer reads of an analysis, without the fields that carry no judgement (source last-seen times). */
const view = (a: KeyAnalysis) => ({ entry: toVerdictEntry(a), state: a.state, services: a.services, opens: [...a.opensPerSource], states: [...a.states] });
const byKey = <T extends { key: BreakerKey }>(xs: T[]) => [...xs].sort((x, y) => JSON.stringify(x.key).localeCompare(JSON.stringify(y.key)));

/** One random write at the clock's time: windows (some late), transitions, probes, tasks, or pruning. */
async function randomWrite(storage: Storage, clock: ManualServerClock, pick: () => number, seq: { n: number }): Promise<string> {
  const now = clock.now();
  const key = KEYS[Math.floor(pick() * KEYS.length)]!;
  const source = SOURCES[Math.floor(pick() * SOURCES.length)]!;
  const late = pick() < 0.3 ? Math.floor(pick() * 20) * MIN : 0;
  const at = now - late - 30_000;
  const r = pick();
  let events: TelemetryEvent[];
  let what: string;
  if (r < 0.45) {
    const failing = pick() < 0.3;
    events = windows(key, at - 20_000, at, { calls: 30, errors: failing ? { server: 12 } : { server: 1 }, slow: pick() < 0.2 ? 8 : 0 });
    what = `windows ${key.model}${late ? ` ${late / MIN} min late` : ''}`;
  } else if (r < 0.6) {
    const open = pick() < 0.5;
    events = [transition(key, at, open ? 'closed' : 'open', open ? 'open' : 'closed')];
    what = `transition ${key.model} ${open ? 'open' : 'closed'}`;
  } else if (r < 0.8) {
    const location = pick() < 0.5 ? 'eu' : 'us';
    events = probes(key, location, at - MIN, at, pick() < 0.3 ? 'error' : 'ok', pick() < 0.3 ? { error_class: 'server', status: 503 } : {});
    await storage.telemetry.insertBatch({ batch_id: `p-${seq.n++}`, source: { service: `prober-${location}`, instance: location, sdk: 'test/0' }, events }, now);
    return `probe ${key.model} ${location}`;
  } else if (r < 0.9) {
    events = [{ type: 'tasks', start: at - 10_000, end: at, operation: 'draft', completed: 5, failed: 1, degraded: 0, attempts: 7, cost_usd: 0.1, levels: { '0': 4, '1': 1 }, fallback: { invoked: 2, failed: 1 }, key }];
    what = 'tasks';
  } else {
    await storage.retention.prune(now);
    return 'prune';
  }
  await storage.telemetry.insertBatch({ batch_id: `b-${seq.n++}`, source: { ...source, sdk: 'test/0' }, events }, now);
  return what;
}

/**
 * Random event orders, late data, pruning and restarts: the kept analyses always equal a full
 * pass. With `collectors: 2` a second storage on the same database (another collector) makes
 * about half the writes; the first process's own feed never sees those (only a change log can).
 */
async function property(open: (clock: ManualServerClock) => Promise<Storage>, seed: number, steps: number, options: { collectors?: 1 | 2 } = {}) {
  const pick = random(seed);
  const start = Date.UTC(2026, 0, 5, 10, 0, 7);
  const c = manualClock(start);
  let raw = await open(c);
  const other = options.collectors === 2 ? await open(c) : undefined;
  let { storage, feed } = watchChanges(raw);
  const full = (s: Storage): VerdictEngine => createVerdictEngine(s, thresholds);
  let inc = createVerdictEngine(storage, thresholds, undefined, undefined, feed);
  const seq = { n: 0 };
  // Breakers made two days back: pruning removes these creations later in the run.
  for (const [i, key] of KEYS.entries()) {
    await storage.telemetry.insertBatch({ batch_id: `c-${i}`, source: { ...SOURCES[i % 3]!, sdk: 'test/0' }, events: [transition(key, start - 2 * DAY, null, 'closed', 'created')] }, start - 2 * DAY);
  }
  const log: string[] = [];
  for (let step = 0; step < steps; step++) {
    const r = pick();
    if (r < 0.05) {
      // A restart: a new process opens the same database with nothing kept.
      await raw.close();
      raw = await open(c);
      ({ storage, feed } = watchChanges(raw));
      inc = createVerdictEngine(storage, thresholds, undefined, undefined, feed);
      log.push('restart');
    } else if (r < 0.35) {
      c.advance(Math.floor(pick() * 45_000));
      log.push(`clock +, now ${new Date(c.now()).toISOString()}`);
    } else if (r < 0.45) {
      c.advance(DAY / 2);
      log.push('clock + 12 h');
    } else if (other && pick() < 0.5) {
      log.push(`other collector: ${await randomWrite(other, c, pick, seq)}`);
    } else {
      log.push(await randomWrite(storage, c, pick, seq));
    }
    for (const span of WINDOWS_MS) {
      const range = { from: c.now() - span, to: c.now() };
      const [a, b] = [await inc.analyse(range), await full(storage).analyse(range)];
      const context = `seed ${seed}, step ${step}, window ${span / MIN} min: ${log.slice(-4).join(' | ')}`;
      expect(byKey(a.map(view).map((v) => ({ ...v, key: v.entry.key }))), context).toEqual(byKey(b.map(view).map((v) => ({ ...v, key: v.entry.key }))));
      expect(await inc.keys(range), context).toEqual(await full(storage).keys(range));
      expect(await inc.incidents(range), context).toEqual(await full(storage).incidents(range));
    }
  }
  const stats = inc.cacheStats()!;
  await raw.close();
  await other?.close();
  return stats;
}

describe('incremental verdict analysis equals a full recompute', () => {
  it('on SQLite, over random writes, late data, pruning, clock moves and restarts', { timeout: 120_000 }, async () => {
    const tmp = tempDir();
    const totals = { partial: 0, reused: 0, full: 0, slid: 0 };
    try {
      for (const seed of [1, 2, 3]) {
        const open = async (clock: ManualServerClock) => createSqliteStorage({ path: join(tmp.dir, `bbx-${seed}.db`), clock, retention, retryAfterS: 1 });
        const s = await property(open, seed, 60);
        totals.partial += s.partial;
        totals.reused += s.reused;
        totals.full += s.full;
        totals.slid += s.slid;
      }
    } finally {
      tmp.cleanup();
    }
    // Not vacuous: some passes judged only some keys again, and some none.
    expect(totals.partial).toBeGreaterThan(0);
    expect(totals.reused + totals.partial).toBeGreaterThan(0);
    // The kept rollup minutes' path: passes past a minute edge or a probe result that were not full.
    expect(totals.slid).toBeGreaterThan(0);
  });

  it.skipIf(!postgres.available)('on PostgreSQL, the same property, with a second collector writing half the data', { timeout: 240_000 }, async () => {
    const totals = { partial: 0, reused: 0 };
    for (const seed of [4, 5, 6]) {
      const url = await postgres.database(`incremental_${seed}`);
      const open = async (clock: ManualServerClock) => createPostgresStorage({ url, clock, retryAfterS: 1, retention });
      const s = await property(open, seed, 50, { collectors: 2 });
      totals.partial += s.partial;
      totals.reused += s.reused;
    }
    // Not vacuous: passes judged only some keys again while another collector wrote (its writes reach this feed only through the change log).
    expect(totals.partial).toBeGreaterThan(0);
  });
});

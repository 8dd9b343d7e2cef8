import type { ChangeFeed } from '../storage/change-feed.ts';
import { changeKeyOf } from '../storage/change-feed.ts';
import { analysePass, type AnalyseDeps, type AnalysisPass, type KeyAnalysis } from './analyse.ts';
import { joinGroups } from './key-join.ts';
import type { ProbeTable } from './probe-table.ts';
import { floorMinute, type TimeRange } from './window.ts';

const MINUTE = 60_000;
const ceilMinute = (t: number) => Math.ceil(t / MINUTE) * MINUTE;

/** What one window's kept analyses were computed from. */
interface Kept {
  /** The minute bounds every read of the pass used: equal bounds read the same rows. */
  bounds: string;
  /** The first and last minute the pass read (`minute >= first AND minute < to`). */
  first: number;
  last: number;
  to: number;
  cursor: number;
  byId: Map<number, KeyAnalysis>;
  timeDependent: Set<number>;
  probes: ProbeTable;
  healthJson: string;
}

/** How the last pass was answered, for the bench and `/metrics`. */
export interface CacheStats {
  full: number;
  partial: number;
  /** Passes that judged no key again. */
  reused: number;
  /** Partial or reusing passes whose window slid past a minute edge or took in probe results (kept rollup minutes). */
  slid: number;
  /** Keys judged again by the last pass that was not full. */
  lastDirty: number;
  /** Analyses kept, over every window. */
  kept: number;
}

/** Settings of the cache. */
export interface CacheOptions {
  /** Windows (length, `all`) kept at once; the least recently used goes first. */
  maxWindows: number;
  /** A partial pass reads key by key: above this share of the kept keys, one full pass is cheaper. */
  maxDirtyShare: number;
}

/** `analyse` over every key, answered incrementally (docs/verdict-engine.md). */
export interface AnalysisCache {
  analyse(range: TimeRange, options?: { all?: boolean }): Promise<KeyAnalysis[]>;
  stats(): CacheStats;
}

/**
 * Keeps each window's analyses per key and judges again only the keys whose inputs may have
 * changed since (the rule is in docs/verdict-engine.md): a full pass when the window's minute
 * bounds moved, a probe, a new key or a global write arrived, or prober health changed;
 * else the keys the feed names, their alias groups, keys with data stamped after the kept
 * pass, and the time-dependent keys, read key by key. Concurrent callers of the same window
 * share one pass.
 */
export function createAnalysisCache(deps: AnalyseDeps, feed: ChangeFeed, options: CacheOptions): AnalysisCache {
  const t = deps.thresholds;
  const kept = new Map<string, Kept>();
  const inFlight = new Map<string, Promise<KeyAnalysis[]>>();
  const stats = { full: 0, partial: 0, reused: 0, slid: 0, lastDirty: 0 };

  const boundsOf = ({ from, to }: TimeRange) =>
    [floorMinute(from), ceilMinute(to), floorMinute(to - t.probe_recent_lookback_s * 1000), floorMinute(to - t.stale_probe_lookback_s * 1000), Math.floor(from / 3_600_000), Math.floor(to / 3_600_000)].join(':');

  const keep = (name: string, k: Kept) => {
    kept.delete(name);
    kept.set(name, k);
    while (kept.size > options.maxWindows) kept.delete(kept.keys().next().value!);
  };
  const fromPass = (pass: AnalysisPass, range: TimeRange, cursor: number, byId = new Map(pass.list.map((a) => [a.info.id, a]))): Kept => ({
    bounds: boundsOf(range), first: floorMinute(range.from), last: floorMinute(range.to - 1), to: range.to, cursor, byId, timeDependent: pass.timeDependent, probes: pass.probes, healthJson: pass.healthJson,
  });

  // Only keys joined under an alias are ever merged again: the rest of a kept probe table's raw rows can go.
  async function joinedKeys(): Promise<Set<number>> {
    const joined = new Set<number>();
    for (const group of joinGroups(await deps.storage.telemetry.keys(), t.provider_aliases).values()) if (group.length > 1) for (const id of group) joined.add(id);
    return joined;
  }

  async function full(name: string, range: TimeRange, all: boolean): Promise<KeyAnalysis[]> {
    const cursor = feed.cursor();
    const pass = await analysePass(deps, range, { all });
    pass.probes.keepOnly(await joinedKeys());
    stats.full++;
    keep(name, fromPass(pass, range, cursor));
    return pass.list;
  }

  async function answer(name: string, range: TimeRange, all: boolean): Promise<KeyAnalysis[]> {
    // Other collectors' writes (PostgreSQL's change log) into the feed before its cursor is read.
    await feed.sync?.();
    const k = kept.get(name);
    if (!k || range.to < k.to) return full(name, range, all);
    // A window the kept minutes cover slides: its minute edges and probes dirty only the keys they touch.
    const minutes = deps.minutes?.covers(floorMinute(range.from), range.to) ? deps.minutes : undefined;
    if (!minutes && k.bounds !== boundsOf(range)) return full(name, range, all);
    const cursor = feed.cursor();
    const changes = feed.since(k.cursor);
    if (changes.global || (changes.probes && !minutes)) return full(name, range, all);
    const dirty = new Set<number>(k.timeDependent);
    const first = floorMinute(range.from);
    if (minutes && first > k.first) {
      // The minutes that left the window: every key with a row in them (late rows since are the feed's).
      const left = minutes.keysIn(k.first, Math.min(first, k.last + MINUTE));
      if (!left) return full(name, range, all);
      for (const id of left) dirty.add(id);
    }
    const keys = await deps.storage.telemetry.keys();
    for (const [id, info] of keys) {
      const n = changeKeyOf(info.key);
      if (changes.keys.has(n) || changes.latestTs(n) > k.to) dirty.add(id);
    }
    // A key's alias group is judged together: a probe-only key is shown under a joined key with clients.
    const groups = joinGroups(keys, t.provider_aliases);
    for (const id of [...dirty]) for (const other of groups.get(id) ?? []) dirty.add(other);
    if (dirty.size > Math.max(8, options.maxDirtyShare * k.byId.size)) return full(name, range, all);
    // Even with no key dirty: the pass re-reads what every key shares (keys, sources, fallbacks, suspicions, prober health).
    // Sliding: the probe table is read again (from memory); else the kept one is the window's.
    const pass = await analysePass(deps, range, { all }, minutes ? { only: dirty } : { only: dirty, probes: k.probes });
    // Prober health moves with time too (its recent lookback); a change reaches every key.
    if (pass.healthJson !== k.healthJson) return full(name, range, all);
    const byId = new Map(k.byId);
    const timeDependent = new Set(k.timeDependent);
    for (const id of dirty) {
      byId.delete(id);
      timeDependent.delete(id);
    }
    for (const a of pass.list) byId.set(a.info.id, a);
    for (const id of pass.timeDependent) timeDependent.add(id);
    if (minutes) pass.probes.keepOnly(await joinedKeys());
    if (minutes && (k.bounds !== boundsOf(range) || changes.probes)) stats.slid++;
    if (dirty.size === 0) stats.reused++;
    else stats.partial++;
    stats.lastDirty = dirty.size;
    keep(name, { ...fromPass(pass, range, cursor, byId), timeDependent });
    return [...byId.values()];
  }

  return {
    analyse(range, opts = {}) {
      const all = opts.all === true;
      const name = `${range.to - range.from}:${all}`;
      const flight = `${name}:${range.from}`;
      let p = inFlight.get(flight);
      if (!p) {
        // One pass per window at a time: a second caller for another `to` waits for the first, then reuses it.
        const before = [...inFlight.entries()].find(([f]) => f.startsWith(`${name}:`))?.[1];
        p = (before ? before.catch(() => undefined) : Promise.resolve()).then(() => answer(name, range, all));
        inFlight.set(flight, p);
        void p.finally(() => inFlight.delete(flight)).catch(() => undefined);
      }
      // Each caller its own array (they sort in place); the analyses are shared and never changed after their pass.
      return p.then((list) => [...list]);
    },
    stats: () => ({ ...stats, kept: [...kept.values()].reduce((n, k) => n + k.byId.size, 0) }),
  };
}

import { minuteOf, type BreakerKey, type TelemetryBatch } from '@breakerbox/protocol';
import type { ChangeLogPart, ChangeLogRead } from './parts/change-log.ts';
import { keyFromRow } from './key-rows.ts';
import type { Storage } from './storage.ts';

/** The identity the feed files a key's changes under (a key id is not known before its batch is stored). */
export const changeKeyOf = (k: BreakerKey): string => JSON.stringify([k.provider, k.endpoint, k.model, k.region ?? '']);

/** What was written since a cursor. */
export interface Changes {
  /** A write whose reach is not one key: a new key, tasks (fallbacks per service), pruning, hourly aggregates, suspicions. */
  global: boolean;
  /** A probe result was stored (prober health is judged across every key). */
  probes: boolean;
  /** Keys (`changeKeyOf`) that got windows, transitions, config or samples. */
  keys: Set<string>;
  /** Per key, the latest event time ever written: data stamped after a pass's end changes that pass's window later. */
  latestTs(key: string): number;
  /**
   * The earliest rollup minute an event written since the cursor can have changed (its
   * `start` or `ts`, floored to the minute); `Infinity` when none was written, 0 when the
   * feed no longer knows (the cursor is older than the writes it remembers, or pruning ran).
   * Tasks, hourly aggregates and suspicions write no per-minute key, source or probe row.
   */
  minuteFrom: number;
}

/**
 * A cursor over the storage's writes, for the incremental verdict analysis
 * (docs/verdict-engine.md). It sees the writes made through the storage object it wraps
 * (complete on SQLite: one writer) and, on PostgreSQL, every collector's writes through the
 * shared change log, brought in by `sync`.
 */
export interface ChangeFeed {
  /** The version of the latest write. */
  cursor(): number;
  since(cursor: number): Changes;
  /**
   * Brings in what other collectors wrote (PostgreSQL's change log; absent where the feed
   * sees every write): every write committed before the call is in the feed when it resolves.
   */
  sync?(): Promise<void>;
}

/** What a feed passes to another thread's copy (the read worker): the changes since a cursor, and the cursor they reach. */
export interface FeedDelta {
  cursor: number;
  global: boolean;
  probes: boolean;
  /** Keys changed, each with its latest event time. */
  keys: [string, number][];
  /** `Changes.minuteFrom` since the cursor the delta starts at. */
  minuteFrom: number;
}

/** The per-minute rollup tables the verdicts' kept minutes hold (server/verdicts/minute-window.ts). */
export const MINUTE_TABLES = ['key_minutes', 'key_minute_sources', 'probe_minutes'];

/** Writes whose earliest minute the feed remembers (older cursors read minute 0: everything). */
const MINUTES_REMEMBERED = 4096;

/** The bookkeeping behind a feed: versions of global, probe and per-key changes. */
function feedLog() {
  let version = 0;
  let globalAt = 0;
  let probesAt = 0;
  const keys = new Map<string, { at: number; latestTs: number }>();
  // [version, earliest minute] per write, oldest first; versions before `forgottenAt` are dropped.
  const minutes: [number, number][] = [];
  let forgottenAt = 0;
  // Pruning deletes rollup rows: which minutes is not known, so every minute may have changed.
  let prunedAt = 0;
  return {
    pruned: (at: number) => void (prunedAt = at),
    next: () => ++version,
    global: (at: number) => void (globalAt = at),
    minute(at: number, minute: number) {
      const last = minutes[minutes.length - 1];
      if (last && last[0] === at) last[1] = Math.min(last[1], minute);
      else minutes.push([at, minute]);
      if (minutes.length > MINUTES_REMEMBERED) forgottenAt = minutes.shift()![0];
    },
    probes: (at: number) => void (probesAt = at),
    key(at: number, name: string, ts: number) {
      const known = keys.get(name);
      keys.set(name, { at, latestTs: Math.max(known?.latestTs ?? 0, ts) });
      return known !== undefined;
    },
    feed: {
      cursor: () => version,
      since(cursor: number): Changes {
        const changed = new Set<string>();
        for (const [name, k] of keys) if (k.at > cursor) changed.add(name);
        let minuteFrom = Infinity;
        if (prunedAt > cursor || cursor < forgottenAt) minuteFrom = 0;
        else for (let i = minutes.length - 1; i >= 0 && minutes[i]![0] > cursor; i--) minuteFrom = Math.min(minuteFrom, minutes[i]![1]);
        return { global: globalAt > cursor, probes: probesAt > cursor, keys: changed, latestTs: (name) => keys.get(name)?.latestTs ?? 0, minuteFrom };
      },
    } satisfies ChangeFeed,
  };
}

/** The changes of `feed` since `cursor`, to send to a copy (a cursor of 0 sends every key). */
export function deltaSince(feed: ChangeFeed, cursor: number): FeedDelta {
  const to = feed.cursor();
  const c = feed.since(cursor);
  return { cursor: to, global: c.global, probes: c.probes, keys: [...c.keys].map((name) => [name, c.latestTs(name)]), minuteFrom: c.minuteFrom };
}

/** A copy of another thread's feed, advanced by the deltas it is sent (in order). */
export function feedMirror(): { feed: ChangeFeed; apply(delta: FeedDelta): void } {
  const log = feedLog();
  return {
    feed: log.feed,
    apply(delta) {
      const at = log.next();
      if (delta.global) log.global(at);
      if (delta.probes) log.probes(at);
      for (const [name, ts] of delta.keys) log.key(at, name, ts);
      if (delta.minuteFrom === 0) log.pruned(at);
      else if (delta.minuteFrom !== Infinity) log.minute(at, delta.minuteFrom);
    },
  };
}

/** Files one read of the shared change log under one new version of `log`. */
function applyLogRead(log: ReturnType<typeof feedLog>, read: ChangeLogRead): void {
  const at = log.next();
  // The rows before this read may be incomplete: everything may have changed.
  if (read.reset) {
    log.global(at);
    log.pruned(at);
  }
  for (const r of read.rows) {
    if (r.kind === 'key' || r.kind === 'probe') {
      if (r.kind === 'probe') log.probes(at);
      if (r.minute !== null) log.minute(at, r.minute);
      // A key this process had not seen (or gone from the keys table since): its groups change.
      if (!r.key || !log.key(at, changeKeyOf(keyFromRow(r.key)), r.ts ?? 0)) log.global(at);
      continue;
    }
    if (r.kind === 'prune_minutes') log.pruned(at);
    log.global(at);
  }
}

/** `sync` over a change log: one read at a time; a call waits for a read that starts after it. */
function logSync(log: ReturnType<typeof feedLog>, changeLog: ChangeLogPart): () => Promise<void> {
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  return () => {
    if (queued) return queued;
    const next = tail.catch(() => undefined).then(async () => {
      queued = null;
      applyLogRead(log, await changeLog.read());
    });
    queued = next;
    tail = next;
    return next;
  };
}

/**
 * Wraps the storage's write paths that feed the verdict analysis (ingest, pruning, hourly
 * aggregation, suspicions) so each write bumps the feed, and returns the storage with the feed. Memory: one entry per key ever written (two numbers).
 */
export function watchChanges(storage: Storage): { storage: Storage; feed: ChangeFeed } {
  const log = feedLog();
  const bumpGlobal = () => log.global(log.next());

  const record = (batches: readonly TelemetryBatch[]) => {
    const at = log.next();
    for (const b of batches) {
      for (const e of b.events) {
        if (e.type === 'tasks') {
          log.global(at);
          continue;
        }
        if (e.type === 'probe') log.probes(at);
        log.minute(at, minuteOf(Math.min('ts' in e ? e.ts : e.end, 'start' in e ? e.start : Infinity)));
        // A key this process has not seen may be new to the database: its join groups, siblings and near matches change.
        if (!log.key(at, changeKeyOf(e.key), 'ts' in e ? e.ts : e.end)) log.global(at);
      }
    }
  };
  // The write happened (or may have, if it failed part way): bump after, either way;
  // `changed` (given the result, absent when it failed) can say a job wrote nothing.
  const after = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, mark: (...a: A) => void, changed: (r: R | undefined) => boolean = () => true) =>
    async (...a: A): Promise<R> => {
      let result: R | undefined;
      try {
        return (result = await fn(...a));
      } finally {
        if (changed(result)) mark(...a);
      }
    };
  const { telemetry, retention, rollups, suspicions } = storage;
  // Raw rows age out every minute; only deleted per-minute rollup rows reach the kept minutes.
  const pruned = (r: Awaited<ReturnType<Storage['retention']['prune']>> | undefined) => {
    if (r && !Object.values(r.deleted).some((n) => n > 0)) return false;
    const at = log.next();
    log.global(at);
    if (!r || MINUTE_TABLES.some((t) => (r.deleted[t] ?? 0) > 0)) log.pruned(at);
    return false;
  };
  // In place: the storage keeps its identity (an engine's internals are looked up by it).
  Object.assign(storage, {
    telemetry: {
      ...telemetry,
      insertBatch: after(telemetry.insertBatch, (batch) => record([batch])),
      insertBatches: after(telemetry.insertBatches, (batches) => record(batches)),
    },
    // The background jobs run every minute; most runs change nothing.
    retention: { ...retention, prune: after(retention.prune, () => undefined, pruned) },
    rollups: { ...rollups, buildHour: after(rollups.buildHour, bumpGlobal), warmHours: after(rollups.warmHours, bumpGlobal, (r) => !r || r.built > 0) },
    suspicions: { ...suspicions, open: after(suspicions.open, bumpGlobal), take: after(suspicions.take, bumpGlobal) },
  } satisfies Partial<Storage>);
  // Several collectors (PostgreSQL): their writes reach this feed through the shared change log.
  const feed: ChangeFeed = storage.changeLog ? { ...log.feed, sync: logSync(log, storage.changeLog) } : log.feed;
  return { storage, feed };
}

import type { BreakerKey, TelemetryBatch } from '@breakerbox/protocol';
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
}

/**
 * A cursor over this process's storage writes, for the incremental verdict analysis
 * (docs/verdict-engine.md). It sees only the writes made through the storage object it
 * wraps: complete on SQLite (one writer), not on PostgreSQL with several collectors.
 */
export interface ChangeFeed {
  /** The version of the latest write. */
  cursor(): number;
  since(cursor: number): Changes;
}

/**
 * Wraps the storage's write paths that feed the verdict analysis (ingest, pruning, hourly
 * aggregation, suspicions) so each write bumps the feed. Returns the wrapped storage to use
 * everywhere and the feed. Memory: one entry per key ever written (two numbers).
 */
export function watchChanges(storage: Storage): { storage: Storage; feed: ChangeFeed } {
  let version = 0;
  let globalAt = 0;
  let probesAt = 0;
  const keys = new Map<string, { at: number; latestTs: number }>();
  const bumpGlobal = () => (globalAt = ++version);

  const record = (batches: readonly TelemetryBatch[]) => {
    const at = ++version;
    for (const b of batches) {
      for (const e of b.events) {
        if (e.type === 'tasks') {
          globalAt = at;
          continue;
        }
        if (e.type === 'probe') probesAt = at;
        const name = changeKeyOf(e.key);
        const ts = e.type === 'window' ? e.end : e.ts;
        const known = keys.get(name);
        // A key this process has not seen may be new to the database: its join groups, siblings and near matches change.
        if (!known) globalAt = at;
        keys.set(name, { at, latestTs: Math.max(known?.latestTs ?? 0, ts) });
      }
    }
  };
  // The write happened (or may have, if it failed part way): bump after, either way.
  const after = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, mark: (...a: A) => void) =>
    async (...a: A): Promise<R> => {
      try {
        return await fn(...a);
      } finally {
        mark(...a);
      }
    };
  const { telemetry, retention, rollups, suspicions } = storage;
  const wrapped: Storage = {
    ...storage,
    telemetry: {
      ...telemetry,
      insertBatch: after(telemetry.insertBatch, (batch) => record([batch])),
      insertBatches: after(telemetry.insertBatches, (batches) => record(batches)),
    },
    retention: { ...retention, prune: after(retention.prune, bumpGlobal) },
    rollups: { ...rollups, buildHour: after(rollups.buildHour, bumpGlobal), warmHours: after(rollups.warmHours, bumpGlobal) },
    suspicions: { ...suspicions, open: after(suspicions.open, bumpGlobal), take: after(suspicions.take, bumpGlobal) },
  };
  return {
    storage: wrapped,
    feed: {
      cursor: () => version,
      since(cursor) {
        const changed = new Set<string>();
        for (const [name, k] of keys) if (k.at > cursor) changed.add(name);
        return { global: globalAt > cursor, probes: probesAt > cursor, keys: changed, latestTs: (name) => keys.get(name)?.latestTs ?? 0 };
      },
    },
  };
}

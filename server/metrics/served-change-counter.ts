/**
 * `breakerbox_served_model_changes_total` (docs/metrics.md): the served-model changes the
 * collector derives (server/verdicts/served-changes.ts, the one derivation), counted per
 * provider and model without reading history again at each scrape.
 *
 * The counter keeps, per key, the version in force and how many changes it counted, and a
 * cursor in event time. A scrape at `now` reads only the sightings (probes, call samples)
 * with event time in `[cursor, now − SETTLE_MS)` — every key's, in one read — folds them onto
 * each key's version in event-time order, and moves the cursor there. `SETTLE_MS` lets late
 * senders land first (a call sample rides in its SDK's window, up to its telemetry interval
 * late), so the order is the derivation's; a sighting arriving more than `SETTLE_MS` after its
 * time is left out of the counter (it still shows in the key's `served_changes`). A key's
 * version before its first sighting since the start is read once (`servedBefore`, two index
 * lookups, the look-back of served-changes.ts).
 *
 * Process-local, like a process's own counters: it starts at 0 at the collector's first
 * scrape (never at the history's count, which Prometheus would read as that many changes the
 * moment the process restarts). Every collector on one PostgreSQL counts every change, so
 * aggregate with `max by (provider, model)`, not `sum`.
 */
import type { KeyInfo, Storage } from '../storage/storage.ts';
import type { ServedVersion } from '../schemas/keys.ts';
import { SERVED_BEFORE_MS, servedFold } from '../verdicts/served-changes.ts';

/** How long after its event time a sighting is waited for before the counter reads past it. */
export const SETTLE_MS = 300_000;

/** One provider and model's counted changes. */
export interface ServedChangeCount {
  provider: string;
  model: string;
  changes: number;
}

/** The counter a `/metrics` scrape advances. */
export interface ServedChangeCounter {
  /** Counts the sightings that settled by `now` and returns every known key's provider and model with its count (0 when none). */
  advance(now: number): Promise<ServedChangeCount[]>;
}

/** A counter over `storage`; `settleMs` defaults to `SETTLE_MS`. */
export function createServedChangeCounter(storage: { events: Pick<Storage['events'], 'servedSightingsIn' | 'servedBefore'>; telemetry: { keys(): Promise<Map<number, KeyInfo>> } }, settleMs = SETTLE_MS): ServedChangeCounter {
  let cursor: number | null = null;
  const keys = new Map<number, { version: ServedVersion; changes: number }>();
  return {
    async advance(now) {
      const end = now - settleMs;
      if (cursor === null) cursor = end; // counts from the first scrape on
      else if (end > cursor) {
        const rows = await storage.events.servedSightingsIn(cursor, end);
        for (let i = 0; i < rows.length; ) {
          const keyId = rows[i]!.keyId;
          let j = i;
          while (j < rows.length && rows[j]!.keyId === keyId) j++;
          let state = keys.get(keyId);
          if (!state) {
            const before = await storage.events.servedBefore(keyId, cursor, cursor - SERVED_BEFORE_MS);
            keys.set(keyId, (state = { version: { model_served: before.modelServed, system_fingerprint: before.systemFingerprint }, changes: 0 }));
          }
          const { changes, last } = servedFold(rows.slice(i, j), cursor, state.version);
          state.changes += changes.length;
          state.version = last;
          i = j;
        }
        cursor = end;
      }
      // Every known key's series, 0 until it changes: an alert on increase() sees the first change.
      const out = new Map<string, ServedChangeCount>();
      for (const [id, info] of await storage.telemetry.keys()) {
        const name = `${info.key.provider}\n${info.key.model}`;
        const row = out.get(name) ?? { provider: info.key.provider, model: info.key.model, changes: 0 };
        row.changes += keys.get(id)?.changes ?? 0;
        out.set(name, row);
      }
      return [...out.values()].sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
    },
  };
}

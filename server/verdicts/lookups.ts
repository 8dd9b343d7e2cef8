import type { BreakerKey } from '@breakerbox/protocol';
import type { Db } from '../storage/database.ts';
import { keyFromRow } from '../storage/telemetry-store.ts';

/** A reporting instance as stored. */
export interface SourceInfo {
  id: number;
  serviceId: number;
  service: string;
  instance: string;
  sdk: string | null;
  lastSeen: number;
}

/** A stored key. */
export interface KeyInfo {
  id: number;
  key: BreakerKey;
  firstSeen: number;
  lastSeen: number;
}

/** Names behind the ids the rollups carry. Small tables, read fresh per call. */
export interface Lookups {
  keys(): Map<number, KeyInfo>;
  sources(): Map<number, SourceInfo>;
  services(): Map<number, string>;
}

/** Creates the lookups over the database handle. */
export function createLookups(db: Db): Lookups {
  const keys = db.prepare('SELECT id, provider, endpoint, model, region, first_seen, last_seen FROM keys ORDER BY provider, endpoint, model, region');
  const sources = db.prepare(
    'SELECT s.id, s.service_id, v.name AS service, s.instance, s.sdk, s.last_seen FROM sources s JOIN services v ON v.id = s.service_id',
  );
  const services = db.prepare('SELECT id, name FROM services');
  return {
    keys() {
      const out = new Map<number, KeyInfo>();
      for (const row of keys.all() as { id: number; provider: string; endpoint: string; model: string; region: string; first_seen: number; last_seen: number }[]) {
        out.set(row.id, { id: row.id, key: keyFromRow(row), firstSeen: row.first_seen, lastSeen: row.last_seen });
      }
      return out;
    },
    sources() {
      const out = new Map<number, SourceInfo>();
      for (const r of sources.all() as { id: number; service_id: number; service: string; instance: string; sdk: string | null; last_seen: number }[]) {
        out.set(r.id, { id: r.id, serviceId: r.service_id, service: r.service, instance: r.instance, sdk: r.sdk, lastSeen: r.last_seen });
      }
      return out;
    },
    services() {
      return new Map((services.all() as { id: number; name: string }[]).map((r) => [r.id, r.name]));
    },
  };
}

/** Per-instance sums of one key from the raw windows (for the `local` hint and key detail). */
export interface InstanceSums {
  calls: number;
  failed: number;
  slow: number;
  rejected: number;
  retries: number;
  lastEnd: number;
}

/** Reads one key's per-instance minute rollups, grouped by instance, over the minutes of `[from, to)`. */
export function createInstanceReader(db: Db): (keyId: number, from: number, to: number) => Map<number, InstanceSums> {
  const st = db.prepare(`SELECT source_id, SUM(calls), SUM(failed), SUM(slow), SUM(rejected), SUM(retries), MAX(last_end)
    FROM key_minute_sources WHERE key_id = ? AND minute >= ? AND minute < ? AND calls > 0 GROUP BY source_id`).raw();
  return (keyId, from, to) => {
    const out = new Map<number, InstanceSums>();
    for (const [source, calls, failed, slow, rejected, retries, lastEnd] of st.all(keyId, from - (from % 60_000), to) as number[][]) {
      out.set(source!, { calls: calls!, failed: failed!, slow: slow!, rejected: rejected!, retries: retries!, lastEnd: lastEnd! });
    }
    return out;
  };
}

import type { Db } from './database.ts';
import { createTelemetryStore } from './telemetry-store.ts';
import { keyFromRow, regionColumn } from '../key-rows.ts';
import { SIGNALS_ALL, signalsOf, type SignalRow } from '../signal-rows.ts';
import { PASSTHROUGH_RANGE, passthroughRowsOf } from '../passthrough-rows.ts';
import type { KeyInfo, SourceInfo, TelemetryPart } from '../parts/telemetry.ts';
import type { SyncPart } from './sync-part.ts';

/**
 * The telemetry part: the ingest store (`createTelemetryStore`, unchanged) plus the names
 * behind the ids. `writable: false` (the read worker's read-only connection) leaves the
 * writes out, so nothing prepares an INSERT on a connection that cannot run it.
 */
export function createTelemetryPart(db: Db, options: { writable: boolean }): SyncPart<TelemetryPart> {
  const store = options.writable ? createTelemetryStore(db) : null;
  const keySelect = db.prepare('SELECT id FROM keys WHERE provider = ? AND endpoint = ? AND model = ? AND region = ?').pluck();
  const keys = db.prepare('SELECT id, provider, endpoint, model, region, first_seen, last_seen FROM keys ORDER BY provider, endpoint, model, region');
  const sources = db.prepare(
    'SELECT s.id, s.service_id, v.name AS service, s.instance, s.sdk, s.last_seen FROM sources s JOIN services v ON v.id = s.service_id',
  );
  const services = db.prepare('SELECT id, name FROM services');
  const signals = db.prepare(SIGNALS_ALL);
  const passthrough = db.prepare(PASSTHROUGH_RANGE);
  const readOnly = () => {
    throw new Error('this storage was opened read-only');
  };
  const findKeyId = store ? store.findKeyId : (key: Parameters<TelemetryPart['findKeyId']>[0]) =>
    (keySelect.get(key.provider, key.endpoint, key.model, regionColumn(key)) as number | undefined);
  const listKeys = (): KeyInfo[] =>
    (keys.all() as { id: number; provider: string; endpoint: string; model: string; region: string; first_seen: number; last_seen: number }[]).map(
      (row) => ({ id: row.id, key: keyFromRow(row), firstSeen: row.first_seen, lastSeen: row.last_seen }),
    );
  return {
    insertBatch: store ? store.insertBatch : readOnly,
    insertBatches: store ? store.insertBatches : readOnly,
    findKeyId,
    findKeyIds: (list) => list.map((key) => findKeyId(key)),
    listKeys,
    keys: () => new Map(listKeys().map((k) => [k.id, k])),
    sources() {
      const out = new Map<number, SourceInfo>();
      for (const r of sources.all() as { id: number; service_id: number; service: string; instance: string; sdk: string | null; last_seen: number }[]) {
        out.set(r.id, { id: r.id, serviceId: r.service_id, service: r.service, instance: r.instance, sdk: r.sdk, lastSeen: r.last_seen });
      }
      return out;
    },
    services: () => new Map((services.all() as { id: number; name: string }[]).map((r) => [r.id, r.name])),
    providerSignals: () => signalsOf(signals.all() as SignalRow[]),
    passthrough: (from, to) => passthroughRowsOf(passthrough.all(from, to) as Parameters<typeof passthroughRowsOf>[0]),
  };
}

import type { Db } from './database.ts';
import type { FleetPart } from '../parts/fleet.ts';
import type { SyncPart } from './sync-part.ts';
import { FLEET_COLUMNS, fleetRecord, fleetRowValues, type FleetRow } from '../fleet-rows.ts';

/** Creates the fleet decisions part over the SQLite connection. */
export function createFleetStore(db: Db): SyncPart<FleetPart> {
  const insert = db.prepare(`INSERT INTO fleet_decisions (${FLEET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const renew = db.prepare('UPDATE fleet_decisions SET expires_at = ?, updated_at = ? WHERE id = ? AND ended_at IS NULL');
  const end = db.prepare('UPDATE fleet_decisions SET ended_at = ?, ended_by = ?, updated_at = ? WHERE id = ? AND ended_at IS NULL');
  const running = db.prepare(`SELECT * FROM fleet_decisions WHERE ended_at IS NULL AND expires_at > ?
    AND kind IN (SELECT value FROM json_each(?)) ORDER BY issued_at, id`);
  const forKey = db.prepare('SELECT * FROM fleet_decisions WHERE key_tag = ? AND issued_at >= ? ORDER BY issued_at DESC, id DESC LIMIT ?');
  return {
    insert(d) {
      insert.run(...fleetRowValues(d));
    },
    renew(id, expiresAt, now) {
      renew.run(expiresAt, now, id);
    },
    end(id, now, by) {
      end.run(now, by, now, id);
    },
    running: (now, kinds) => (running.all(now, JSON.stringify(kinds)) as FleetRow[]).map(fleetRecord),
    forKey: (tag, since, limit) => (forKey.all(tag, since, limit) as FleetRow[]).map(fleetRecord),
  };
}

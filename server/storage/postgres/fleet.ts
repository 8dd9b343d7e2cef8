import type { FleetPart } from '../parts/fleet.ts';
import type { PgPool } from './pool.ts';
import { FLEET_COLUMNS, fleetRecord, fleetRowValues, type FleetRow } from '../fleet-rows.ts';

/** Fleet decisions on PostgreSQL: written by the leader and by any collector on-call reaches, served by all. */
export function createPostgresFleet(pool: PgPool): FleetPart {
  const rows = async (name: string, text: string, values: unknown[]) => (await pool.query<FleetRow>({ name, text, values })).rows.map(fleetRecord);
  return {
    async insert(d) {
      await pool.query({ name: 'fleet_insert', text: `INSERT INTO fleet_decisions (${FLEET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, values: fleetRowValues(d) });
    },
    async renew(id, expiresAt, now) {
      await pool.query({ name: 'fleet_renew', text: 'UPDATE fleet_decisions SET expires_at = $1, updated_at = $2 WHERE id = $3 AND ended_at IS NULL', values: [expiresAt, now, id] });
    },
    async end(id, now, by) {
      await pool.query({ name: 'fleet_end', text: 'UPDATE fleet_decisions SET ended_at = $1, ended_by = $2, updated_at = $1 WHERE id = $3 AND ended_at IS NULL', values: [now, by, id] });
    },
    running: (now, kinds) =>
      rows('fleet_running', 'SELECT * FROM fleet_decisions WHERE ended_at IS NULL AND expires_at > $1 AND kind = ANY($2::text[]) ORDER BY issued_at, id', [now, [...kinds]]),
    forKey: (tag, since, limit) =>
      rows('fleet_for_key', 'SELECT * FROM fleet_decisions WHERE key_tag = $1 AND issued_at >= $2 ORDER BY issued_at DESC, id DESC LIMIT $3', [tag, since, limit]),
  };
}

import type { BreakerKey, FleetDecisionKind } from '@breakerbox/protocol';
import type { FleetDecisionRecord, FleetOrigin } from './parts/fleet.ts';

/** A `fleet_decisions` row as both engines return it (JSON columns as text). */
export interface FleetRow {
  id: string;
  kind: string;
  key: string;
  key_tag: string;
  origin: string;
  reason: string;
  created_by: string | null;
  locations: string;
  issued_at: number;
  updated_at: number;
  expires_at: number;
  ended_at: number | null;
  ended_by: string | null;
  key_id: number | null;
}

/** The columns of an insert, in order (both engines bind this list). */
export function fleetRowValues(d: FleetDecisionRecord): unknown[] {
  return [
    d.id, d.kind, JSON.stringify(d.key), d.keyTag, d.origin, d.reason, d.createdBy, JSON.stringify(d.locations),
    d.issuedAt, d.updatedAt, d.expiresAt, d.endedAt, d.endedBy, d.keyId,
  ];
}

/** The insert's column list. */
export const FLEET_COLUMNS = 'id, kind, key, key_tag, origin, reason, created_by, locations, issued_at, updated_at, expires_at, ended_at, ended_by, key_id';

/** A row as the part returns it. */
export function fleetRecord(r: FleetRow): FleetDecisionRecord {
  return {
    id: r.id,
    kind: r.kind as FleetDecisionKind,
    key: JSON.parse(r.key) as BreakerKey,
    keyTag: r.key_tag,
    origin: r.origin as FleetOrigin,
    reason: r.reason,
    createdBy: r.created_by,
    locations: JSON.parse(r.locations) as string[],
    issuedAt: r.issued_at,
    updatedAt: r.updated_at,
    expiresAt: r.expires_at,
    endedAt: r.ended_at,
    endedBy: r.ended_by,
    keyId: r.key_id ?? null,
  };
}

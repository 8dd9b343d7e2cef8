import type { BreakerKey, FleetDecisionKind } from '@breakerbox/protocol';

/** Who made a fleet decision: the leader's verdict evaluation, or on-call. */
export type FleetOrigin = 'verdict' | 'operator';

/** A fleet decision as stored (docs/fleet.md). */
export interface FleetDecisionRecord {
  id: string;
  kind: FleetDecisionKind;
  key: BreakerKey;
  /** `fleetKeyTag(key)`. */
  keyTag: string;
  origin: FleetOrigin;
  reason: string;
  createdBy: string | null;
  /** The probe locations that decided an outage (empty otherwise). */
  locations: string[];
  issuedAt: number;
  updatedAt: number;
  expiresAt: number;
  endedAt: number | null;
  endedBy: string | null;
  /**
   * The key's id (`keys.id`) on verdict rows, so the leader's tick never looks it up; null on
   * operator rows and on rows stored before migration 066 (look those up by `key`).
   */
  keyId: number | null;
}

/** Fleet decision rows. Written by the leader (verdict rows) and any collector (operator rows); read by every collector. */
export interface FleetPart {
  /** Stores a new decision. */
  insert(d: FleetDecisionRecord): Promise<void>;
  /** Renews a running decision: a later expiry (and `updated_at`); no-op when it has ended. */
  renew(id: string, expiresAt: number, now: number): Promise<void>;
  /** Ends a running decision at `now` (recovered, released); no-op when it has ended already. */
  end(id: string, now: number, by: string | null): Promise<void>;
  /** Decisions of these kinds that run at `now` (not ended, expiring later), oldest first. */
  running(now: number, kinds: readonly FleetDecisionKind[]): Promise<FleetDecisionRecord[]>;
  /** One key's decisions issued at or after `since`, newest first, at most `limit` (the key page, the audit trail). */
  forKey(keyTag: string, since: number, limit: number): Promise<FleetDecisionRecord[]>;
}

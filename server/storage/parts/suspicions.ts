import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { OnDemandCounts } from '../../schemas/probes.ts';

/** One client window as the trigger reads it. */
export interface RecentWindow {
  keyId: number;
  sourceId: number;
  start: number;
  end: number;
  calls: number;
  errors: Partial<Record<ErrorClass, number>>;
}

/** Where a read of recent windows got to: opaque to the caller; null to start afresh. */
export type WindowCursor = number | null;

/** One read of recent windows (see `SuspicionsPart.windowsAfter`). */
export interface WindowsRead {
  windows: RecentWindow[];
  /** Pass it to the next read. */
  cursor: WindowCursor;
  /** True when `windows` is everything since `since`, false when only what is new since the cursor. */
  complete: boolean;
}

/** One breaker transition as the trigger reads it. */
export interface RecentTransition {
  keyId: number;
  sourceId: number;
  ts: number;
  to: string;
}

/** A stored suspicion: a key whose client side began to degrade, and whom it asked. */
export interface SuspicionRow {
  id: number;
  keyId: number;
  startedAt: number;
  triggeredAt: number;
  reason: string;
  locations: string[];
}

/** A request handed to a prober. */
export interface DeliveredRequest {
  id: number;
  key: BreakerKey;
  requested_at: number;
  suspicion_id: number;
}

/** Probes of one location since a degradation began. */
export interface FreshProbes {
  probes: number;
  failed: number;
}

/** Per location: what was asked of it over a window (shown by `GET /api/probes`, so its schema is the API's). */
export type { OnDemandCounts } from '../../schemas/probes.ts';

/** The new suspicion and its requests, written in one transaction. */
export interface SuspicionInput {
  keyId: number;
  startedAt: number;
  triggeredAt: number;
  reason: string;
  /** Per location, the due times of its requests. */
  requests: { location: string; notBefore: number[] }[];
  ttlMs: number;
}

/** Suspicions and probe requests (probe on suspicion, migration 030). */
export interface SuspicionsPart {
  /**
   * Raw client windows for the trigger, ending at or after `since`. From a `cursor` an
   * earlier read returned, only the windows stored after that read (`complete: false`:
   * add them to what was read before); with `null`, or when the engine cannot tell what is
   * new, every such window (`complete: true`: replace what was read before). Instances
   * (key × source) whose windows hold no error at all may be left out of a complete read:
   * they cannot be failing.
   */
  windowsAfter(cursor: WindowCursor, since: number): Promise<WindowsRead>;
  /** Raw transitions at or after `since`, oldest first. */
  transitionsSince(since: number): Promise<RecentTransition[]>;
  /** Locations that probed the key (warm probes) at or after `since`. */
  coveringLocations(keyId: number, since: number): Promise<string[]>;
  /** The key's latest suspicion triggered at or before `at`, or null. */
  latest(keyId: number, at: number): Promise<SuspicionRow | null>;
  /** The latest suspicion of each key triggered in [from, to]. */
  latestPerKey(from: number, to: number): Promise<Map<number, SuspicionRow>>;
  /** Requests created for a location since `since` (the per-location bound). */
  requestedOf(location: string, since: number): Promise<number>;
  /** Stores a suspicion and its requests in one transaction; resolves to the stored suspicion. */
  open(input: SuspicionInput): Promise<SuspicionRow>;
  /**
   * Queues one probe request that belongs to no suspicion (`suspicion_id` 0): a fleet
   * outage's recovery probe (docs/fleet.md), due at `at`, expiring `ttlMs` later.
   */
  request(keyId: number, location: string, at: number, ttlMs: number): Promise<void>;
  /** Marks up to `limit` due requests of a location delivered and returns them. */
  take(location: string, now: number, limit: number): Promise<DeliveredRequest[]>;
  /** The earliest due time of a location's undelivered, unexpired requests, or null. */
  nextDue(location: string, now: number): Promise<number | null>;
  /** Warm probes of the key per location with ts in [since, to], and how many failed (misconfiguration aside). */
  probesSince(keyId: number, since: number, to: number): Promise<Map<string, FreshProbes>>;
  /** Per location, the requests created in [from, to] (pending / expired judged at `now`) and the probes served on request. */
  onDemand(from: number, to: number, now: number): Promise<Map<string, OnDemandCounts>>;
}

import type { ProbeActivity } from '../storage/storage.ts';

/** A location that probed a key and has stopped: where, and the start of the last minute it probed in. */
export interface SilentLocation {
  location: string;
  last_ts: number;
}

/**
 * The locations that probed key `keyId` within the lookback `activity` covers, for a key
 * with no probe in the verdict window: each has stopped, so the probe side is stale, not
 * missing (docs/alerts.md, "Silent probers"). By location.
 */
export function silentLocations(activity: ProbeActivity[], keyId: number): SilentLocation[] {
  return activity
    .filter((a) => a.keyId === keyId)
    .map((a) => ({ location: a.location, last_ts: a.lastMinute }))
    .sort((a, b) => a.location.localeCompare(b.location));
}

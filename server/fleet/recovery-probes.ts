/**
 * Recovery probes (docs/fleet.md, "Recovery"): while a probe-confirmed fleet outage holds,
 * the SDK instances take no trial of their own for their cooldown cap (20 s), so the
 * collector asks each location that decided the outage for a probe of the key every
 * `recovery_probe_s`, doubling every minute the outage lasts up to a minute — one probe per
 * location instead of one trial per instance, and a `recovered` that sends the whole fleet
 * back at once. Past the cap the instances' own capped trials (sdk/policies/breaker.ts)
 * bound their return whatever this cadence, so it backs off: the requests go through the
 * probe-on-suspicion queue and its per-location hourly budget, and a long outage never
 * costs more than that bound.
 */
import type { FleetDecisionRecord, Storage } from '../storage/storage.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** The slowest recovery cadence: by then the scheduled probes (once a minute) do as well. */
const MAX_INTERVAL_MS = 60_000;

/** The settings (config `fleet.recovery_probe_s`, `suspicion.max_per_location_per_hour`, `suspicion.request_ttl_s`). */
export interface RecoveryProbeSettings {
  /** First interval, ms; 0 turns recovery probes off. */
  baseMs: number;
  perLocationPerHour: number;
  requestTtlMs: number;
}

/** The leader's recovery probing. */
export interface RecoveryProbes {
  /** Queues the recovery probes due at `now` for the running verdict outages; returns how many were queued. */
  queue(now: number, running: readonly FleetDecisionRecord[]): Promise<number>;
}

/** The interval between recovery probes of an outage `ageMs` old. */
export function recoveryIntervalMs(baseMs: number, ageMs: number): number {
  return Math.min(MAX_INTERVAL_MS, baseMs * 2 ** Math.floor(Math.max(0, ageMs) / MINUTE));
}

/** Creates the recovery probing over the store. */
export function createRecoveryProbes(storage: Pick<Storage, 'suspicions' | 'telemetry'>, s: RecoveryProbeSettings): RecoveryProbes {
  // Per decision and location, when its last recovery probe was asked for. Pruned to the
  // running outages on every pass, so it holds no more than they have locations.
  let last = new Map<string, number>();
  return {
    async queue(now, running) {
      if (s.baseMs <= 0) return 0;
      const next = new Map<string, number>();
      let queued = 0;
      for (const d of running) {
        if (d.kind !== 'outage' || d.origin !== 'verdict' || d.locations.length === 0) continue;
        // Rows stored before the key id was kept with them (migration 066) look it up.
        const keyId = d.keyId ?? (await storage.telemetry.findKeyId(d.key));
        if (keyId === undefined) continue;
        const due = recoveryIntervalMs(s.baseMs, now - d.issuedAt);
        for (const location of d.locations) {
          const id = `${d.id}\u0001${location}`;
          const before = last.get(id) ?? d.issuedAt;
          next.set(id, before);
          if (now - before < due) continue;
          // The probe-on-suspicion budget of the location bounds these too.
          if ((await storage.suspicions.requestedOf(location, now - HOUR)) >= s.perLocationPerHour) continue;
          await storage.suspicions.request(keyId, location, now, s.requestTtlMs);
          next.set(id, now);
          queued++;
        }
      }
      last = next;
      return queued;
    },
  };
}

/**
 * When the probes a suspicion asked for have answered (docs/alerts.md, "Probe on suspicion"):
 * the verdict they complete — and the fleet outage it may confirm (docs/fleet.md) — should not
 * wait for the next alert evaluation, up to `alerts.interval_s` later. The leader checks this
 * often and evaluates at once when some suspicion's locations each have `min_probes` warm
 * probes since the degradation began, once per new probe count.
 */
import type { SuspicionsPart } from '../storage/storage.ts';

/** The check over the store. */
export interface ProbesLanded {
  /** True when a suspicion's requested probes have all landed since the last true answer for it. */
  check(now: number): Promise<boolean>;
}

/** Creates the check; `pendingMaxMs` bounds how old a suspicion may be (the verdict stops waiting then). */
export function createProbesLanded(store: Pick<SuspicionsPart, 'latestPerKey' | 'probesSince'>, minProbes: number, pendingMaxMs: number): ProbesLanded {
  // Per suspicion id, the probe count last evaluated: only suspicions of the pending window are kept.
  let seen = new Map<number, number>();
  return {
    async check(now) {
      const open = await store.latestPerKey(now - pendingMaxMs, now);
      const next = new Map<number, number>();
      let landed = false;
      for (const s of open.values()) {
        if (s.locations.length === 0) continue;
        const fresh = await store.probesSince(s.keyId, s.startedAt, now + 1);
        const counts = s.locations.map((l) => fresh.get(l)?.probes ?? 0);
        const total = counts.reduce((a, n) => a + n, 0);
        next.set(s.id, seen.get(s.id) ?? -1);
        if (counts.every((n) => n >= minProbes) && total > (seen.get(s.id) ?? -1)) {
          next.set(s.id, total);
          landed = true;
        }
      }
      seen = next;
      return landed;
    },
  };
}

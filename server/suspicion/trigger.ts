/**
 * Probe on suspicion: each pass reads the recent client telemetry, and for every key whose
 * client side is starting to degrade (detect.ts) opens one suspicion — a burst of probe
 * requests for every prober location covering the key — bounded per key (one burst per
 * `cooldown_s`) and per location (`max_per_location_per_hour`).
 */
import type { SuspicionRow, SuspicionsPart, WindowCursor } from '../storage/storage.ts';
import { detectDegradations, type SuspicionConfig } from './detect.ts';
import { WindowTails } from './window-tails.ts';

const HOUR = 3_600_000;
/** Transitions this old are read to find the start of an open episode. */
const TRANSITION_LOOKBACK_MS = 15 * 60_000;

/** What one pass did. */
export interface TriggerResult {
  /** Keys degrading now. */
  degrading: number;
  /** Suspicions opened by this pass. */
  opened: SuspicionRow[];
}

/** The trigger over the store. */
export interface SuspicionTrigger {
  evaluate(now: number): Promise<TriggerResult>;
}

/** Creates the trigger; `onQueued` hears the locations that have new requests (long-polls wake). */
export function createSuspicionTrigger(store: SuspicionsPart, t: SuspicionConfig, onQueued: (locations: string[]) => void): SuspicionTrigger {
  // What earlier passes read: each pass adds only the windows stored since (where the
  // engine can tell), so a pass costs what arrived, not the whole lookback again.
  const tails = new WindowTails(t.provider_error_share);
  let cursor: WindowCursor = null;
  return {
    async evaluate(now) {
      const since = now - t.window_s * 1000;
      const [read, transitions] = await Promise.all([store.windowsAfter(cursor, since), store.transitionsSince(now - TRANSITION_LOOKBACK_MS)]);
      if (read.complete) tails.clear();
      // The store returns only windows ending at or after `since`.
      for (const w of read.windows) tails.add(w);
      tails.prune(since);
      cursor = read.cursor;
      const found = detectDegradations(tails.runs(), transitions, now, t);
      const opened: SuspicionRow[] = [];
      for (const d of found) {
        const last = await store.latest(d.keyId, now);
        if (last && now - last.triggeredAt < t.cooldown_s * 1000) continue;
        const covering = await store.coveringLocations(d.keyId, now - t.coverage_lookback_s * 1000);
        // A key no prober covers has no probe side to wait for.
        if (covering.length === 0) continue;
        const requests: { location: string; notBefore: number[] }[] = [];
        for (const location of covering) {
          const left = t.max_per_location_per_hour - (await store.requestedOf(location, now - HOUR));
          const n = Math.min(t.burst, left);
          if (n <= 0) continue;
          requests.push({ location, notBefore: Array.from({ length: n }, (_, i) => now + Math.round(i * t.burst_gap_s * 1000)) });
        }
        // Recorded even when every location's budget is spent: the verdict still must not
        // rest on probes older than the degradation.
        opened.push(await store.open({ keyId: d.keyId, startedAt: d.startedAt, triggeredAt: now, reason: d.reason, requests, ttlMs: t.request_ttl_s * 1000 }));
      }
      const locations = [...new Set(opened.flatMap((s) => s.locations))];
      if (locations.length > 0) onQueued(locations);
      return { degrading: found.length, opened };
    },
  };
}

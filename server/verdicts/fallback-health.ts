/**
 * How proven each fallback of a key is, for the key detail (`GET /api/key` → `fallbacks`):
 * its recent success (every request it served in the window, exercise traffic and
 * failovers alike) and the largest share of the primary's volume it has carried in any
 * minute of the window. A fallback that has only ever carried 1% of the primary's
 * requests has not been shown to hold the whole load; one with no recent calls is untested.
 *
 * The primary's volume in a minute is every request that was meant for it: first
 * attempts sent (`calls − retries`), plus the ones refused while open or by the bulkhead.
 * A fallback's carried requests are its first attempts — all of them: when the fallback key
 * also serves traffic of its own, the share is an upper bound. Minutes where the primary saw
 * no volume have no share. Reads go through the rollup reader.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { AnalyseDeps } from './analyse.ts';
import { K, type KeySums } from './counters.ts';
import { floorMinute, type TimeRange } from './window.ts';

import type { FallbackHealth } from '../schemas/keys.ts';
export type { FallbackHealth } from '../schemas/keys.ts';

const r4 = (x: number) => Number(x.toFixed(4));

function sameKey(a: BreakerKey, b: BreakerKey): boolean {
  return a.provider === b.provider && a.endpoint === b.endpoint && a.model === b.model && (a.region ?? '') === (b.region ?? '');
}

/** Sums of each minute over every service. */
function perMinute(minutes: Map<number, Map<number, KeySums>>): Map<number, { requests: number; attempts: number; ok: number; refused: number }> {
  const out = new Map<number, { requests: number; attempts: number; ok: number; refused: number }>();
  for (const [m, services] of minutes) {
    const row = { requests: 0, attempts: 0, ok: 0, refused: 0 };
    for (const s of services.values()) {
      row.attempts += s[K.calls]!;
      row.requests += s[K.calls]! - s[K.retries]!;
      row.ok += s[K.ok]! + s[K.slow]!;
      row.refused += s[K.shortCircuited]! + s[K.rejected]!;
    }
    out.set(m, row);
  }
  return out;
}

/** The health of each declared fallback of `primaryId` over `range`. */
export async function fallbackHealth(deps: Pick<AnalyseDeps, 'storage'>, primaryId: number, fallbacks: unknown, range: TimeRange): Promise<FallbackHealth[]> {
  if (!Array.isArray(fallbacks) || fallbacks.length === 0) return [];
  const first = floorMinute(range.from);
  const { rollups } = deps.storage;
  const primary = perMinute(await rollups.keyMinutes(primaryId, first, range.to));
  const known = [...(await deps.storage.telemetry.keys()).values()];
  return Promise.all((fallbacks as BreakerKey[]).map(async (key) => {
    const id = known.find((k) => sameKey(k.key, key))?.id;
    const h: FallbackHealth = { key, calls: 0, ok: 0, success_share: null, max_share_of_primary: null, max_share_at: null };
    if (id === undefined) return h;
    let attempts = 0;
    for (const [m, row] of perMinute(await rollups.keyMinutes(id, first, range.to))) {
      h.calls += row.requests;
      h.ok += row.ok;
      attempts += row.attempts;
      const p = primary.get(m);
      const volume = p ? p.requests + p.refused : 0;
      // A share needs the primary's volume; a fallback key that also serves traffic of its own
      // counts that too, so the share is an upper bound, capped at the whole volume.
      if (row.requests <= 0 || volume <= 0) continue;
      const s = Math.min(1, row.requests / volume);
      if (h.max_share_of_primary === null || s > h.max_share_of_primary) {
        h.max_share_of_primary = r4(s);
        h.max_share_at = m;
      }
    }
    h.success_share = attempts > 0 ? r4(h.ok / attempts) : null;
    return h;
  }));
}

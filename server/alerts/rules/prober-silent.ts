import type { ProbeActivity } from '../../storage/storage.ts';
import { clockTime } from '../../verdicts/evidence.ts';
import { fingerprint } from '../fingerprint.ts';
import { duration } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

const MIN = 60_000;

/** One location's probing over the lookback: when it last probed, how often it probes a key, how many keys. */
export interface LocationActivity {
  location: string;
  /** End of the last minute it probed in. */
  lastAt: number;
  /** Its schedule interval: the shortest per-key spacing of its probe minutes (a minute at least); null with too few to tell. */
  intervalMs: number | null;
  keys: number;
}

/** Folds per-key activity into per-location activity, by location. */
export function locationActivity(rows: ProbeActivity[]): LocationActivity[] {
  const by = new Map<string, LocationActivity>();
  for (const r of rows) {
    let a = by.get(r.location);
    if (!a) by.set(r.location, (a = { location: r.location, lastAt: 0, intervalMs: null, keys: 0 }));
    a.keys++;
    a.lastAt = Math.max(a.lastAt, r.lastMinute + MIN);
    if (r.minutes >= 2) {
      const spacing = Math.max(MIN, (r.lastMinute - r.firstMinute) / (r.minutes - 1));
      a.intervalMs = a.intervalMs === null ? spacing : Math.min(a.intervalMs, spacing);
    }
  }
  return [...by.values()].sort((x, y) => x.location.localeCompare(y.location));
}

/**
 * Prober silent, per location (docs/alerts.md, "Silent probers"): a location that probed
 * within `lookback_s` and has sent no probe for `intervals` of its own schedule intervals
 * (and at least `min_silent_s`) — the prober died or hit its cost cap, and the keys it
 * covered read `probes_stale`. Resolves when the location reports again.
 */
export const proberSilentRule: Rule<RulesConfig['prober_silent']> = async (ctx, cfg) => {
  const from = ctx.now - cfg.lookback_s * 1000;
  const rows = await ctx.storage.rollups.probeActivity(from - (from % MIN), ctx.now);
  const out: Condition[] = [];
  for (const a of locationActivity(rows)) {
    const silentMs = ctx.now - a.lastAt;
    const limitMs = Math.max(cfg.min_silent_s * 1000, a.intervalMs === null ? 0 : cfg.intervals * a.intervalMs);
    if (silentMs < limitMs) continue; // clear: an alert left without a condition resolves
    out.push({
      fingerprint: fingerprint('prober_silent', null, a.location),
      rule: 'prober_silent',
      keyId: null,
      key: null,
      location: a.location,
      operation: null,
      status: 'fire',
      value: Math.round(silentMs / 1000),
      text:
        `prober location ${a.location} silent for ${duration(Math.round(silentMs / MIN) * 60)}: last probed at ${clockTime(a.lastAt - MIN).replace(/:00 UTC$/, ' UTC')} (${a.keys} key${a.keys === 1 ? '' : 's'})` +
        `${a.intervalMs === null ? '' : `, usually every ${duration(Math.round(a.intervalMs / 1000))}`} — the prober stopped or hit its cost cap; its keys read probes_stale`,
    });
  }
  return out;
};

import { fingerprint } from '../fingerprint.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';
import { locationHealth } from './prober-unhealthy.ts';

/**
 * Probe failing, per key and location: fires after `consecutive` failed (error or slow)
 * warm probes in a row, resolves after `resolve_consecutive` ok ones in a row (or when the
 * location stops probing the key within `lookback_s`). Runs are read from the per-minute
 * probe rollups, newest minute first; where a minute holds both outcomes (the rollup keeps
 * no order inside it) that minute's raw probes are read, newest first, to finish the run —
 * so a burst of failed on-demand probes right after an ok scheduled one counts.
 */
export const probeFailingRule: Rule<RulesConfig['probe_failing']> = async (ctx, cfg) => {
  const from = ctx.now - cfg.lookback_s * 1000;
  const rows = await ctx.storage.rollups.probeOutcomes(from - (from % 60_000), ctx.now);
  const groups = new Map<string, { keyId: number; location: string; minutes: [number, number, number][] }>();
  for (const { keyId, location, minute, probes, ok } of rows) {
    const id = `${keyId}\u0000${location}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { keyId, location, minutes: [] }));
    g.minutes.push([minute, probes, ok]);
  }

  // An unhealthy prober location is one alert of its own (prober_unhealthy), not one per key.
  const unhealthy = new Set([...(await locationHealth(ctx)).values()].filter((h) => h.status === 'unhealthy').map((h) => h.location));
  const out: Condition[] = [];
  for (const { keyId, location, minutes } of groups.values()) {
    if (unhealthy.has(location)) continue;
    minutes.sort((a, b) => b[0] - a[0]);
    let failedRun = 0;
    let okRun = 0;
    for (const [minute, probes, ok] of minutes) {
      if (ok === 0 && okRun === 0) failedRun += probes;
      else if (ok === probes && failedRun === 0) okRun += probes;
      else {
        // Outcomes change here: in a mixed minute, its newest probes may still extend the run.
        if (ok !== 0 && ok !== probes) {
          for (const outcome of await ctx.storage.events.warmOutcomes(keyId, location, minute, minute + 60_000, ctx.now)) {
            if (outcome !== 'ok' && okRun === 0) failedRun++;
            else if (outcome === 'ok' && failedRun === 0) okRun++;
            else break;
          }
        }
        break;
      }
    }
    // Only targets that are not clear need a condition; an alert left without one resolves.
    if (okRun >= cfg.resolve_consecutive) continue;
    const head = await ctx.storage.events.lastWarmProbe(keyId, location, ctx.now);
    if (!head) continue;
    const { key } = head;
    const detail = head.outcome === 'ok' ? 'ok' : `${head.outcome}${head.errorClass ? ` ${head.errorClass}` : ''}${head.status ? ` ${head.status}` : ''}`;
    const misconfigured = head.errorClass === 'auth' || head.errorClass === 'bad_request';
    out.push({
      fingerprint: fingerprint('probe_failing', key, location),
      rule: 'probe_failing',
      keyId,
      key,
      location,
      operation: null,
      status: failedRun >= cfg.consecutive ? 'fire' : 'hold',
      value: failedRun,
      text:
        failedRun > 0
          ? `probe from ${location} failed ${failedRun} times in a row (last: ${detail})${misconfigured ? ' — the probe itself looks misconfigured' : ''}`
          : `probe from ${location} ok ${okRun} time${okRun === 1 ? '' : 's'} in a row`,
    });
  }
  return out;
};

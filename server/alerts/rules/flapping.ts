import { fingerprint } from '../fingerprint.ts';
import { duration } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

/**
 * Flapping: closed → open cycles per hour (an open that follows a close), counted per
 * instance (a breaker lives in one instance) and judged on the worst instance of the key.
 * A breaker re-opening after each failed half-open call during one long outage never
 * closes: that is an outage (open_share), not a flap. Nagios-style hysteresis on the
 * rate: it starts at `fire_opens_per_hour` and stops only at or below `resolve_opens_per_hour`.
 */
export const flappingRule: Rule<RulesConfig['flapping']> = async (ctx, cfg) => {
  const from = ctx.now - cfg.window_s * 1000;
  const rows = await ctx.storage.events.opensPerInstance(from, ctx.now);
  const perKey = new Map<number, typeof rows>();
  for (const row of rows) {
    let list = perKey.get(row.keyId);
    if (!list) perKey.set(row.keyId, (list = []));
    list.push(row);
  }
  const verdicts = await ctx.verdictAnalyses();
  const perHour = (opens: number) => (opens * 3600) / cfg.window_s;
  // Keys without opens are clear: no condition needed (an alert left without one resolves).
  const out: Condition[] = [];
  for (const [keyId, list] of perKey) {
    list.sort((x, y) => y.opens - x.opens || x.instance.localeCompare(y.instance));
    const worst = list[0]!;
    const { key } = worst;
    const value = perHour(worst.opens);
    const flapping = list.filter((x) => perHour(x.opens) >= cfg.fire_opens_per_hour).length;
    const instances = Math.max(verdicts.get(keyId)?.state.instances ?? 0, list.length);
    out.push({
      fingerprint: fingerprint('flapping', key),
      rule: 'flapping',
      keyId,
      key,
      location: null,
      operation: null,
      status: value >= cfg.fire_opens_per_hour ? 'fire' : value <= cfg.resolve_opens_per_hour ? 'clear' : 'hold',
      value: Number(value.toFixed(2)),
      text: `flapping: closed and re-opened ${worst.opens} times in the last ${duration(cfg.window_s)} on ${worst.instance} (${flapping} of ${instances} instances flapping)`,
    });
  }
  return out;
};

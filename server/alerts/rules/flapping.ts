import { fingerprint } from '../fingerprint.ts';
import { duration } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

/**
 * Flapping: transitions into open per hour, counted per instance (a breaker lives in one
 * instance) and judged on the worst instance of the key. Nagios-style hysteresis on the
 * rate: it starts at `fire_opens_per_hour` and stops only at or below `resolve_opens_per_hour`.
 */
export const flappingRule: Rule<RulesConfig['flapping']> = (ctx, cfg) => {
  const from = ctx.now - cfg.window_s * 1000;
  const rows = ctx.db
    .prepare(`SELECT t.key_id, s.instance, COUNT(*) FROM transition_events t JOIN sources s ON s.id = t.source_id
      WHERE t.ts >= ? AND t.ts <= ? AND t.to_state IN ('open', 'forced_open') GROUP BY t.key_id, t.source_id`)
    .raw()
    .all(from, ctx.now) as [number, string, number][];
  const perKey = new Map<number, { instance: string; opens: number }[]>();
  for (const [keyId, instance, opens] of rows) {
    let list = perKey.get(keyId);
    if (!list) perKey.set(keyId, (list = []));
    list.push({ instance, opens });
  }
  const analyses = ctx.analysesOver(cfg.window_s);
  const perHour = (opens: number) => (opens * 3600) / cfg.window_s;
  const out: Condition[] = [];
  for (const [keyId, a] of analyses) {
    const list = (perKey.get(keyId) ?? []).sort((x, y) => y.opens - x.opens || x.instance.localeCompare(y.instance));
    const worst = list[0];
    const value = worst ? perHour(worst.opens) : 0;
    const flapping = list.filter((x) => perHour(x.opens) >= cfg.fire_opens_per_hour).length;
    const status: Condition['status'] = value >= cfg.fire_opens_per_hour ? 'fire' : value <= cfg.resolve_opens_per_hour ? 'clear' : 'hold';
    out.push({
      fingerprint: fingerprint('flapping', a.info.key),
      rule: 'flapping',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status,
      value: Number(value.toFixed(2)),
      text: worst
        ? `flapping: opened ${worst.opens} times in the last ${duration(cfg.window_s)} on ${worst.instance} (${flapping} of ${Math.max(a.state.instances, list.length)} instances flapping)`
        : `no opens in the last ${duration(cfg.window_s)}`,
    });
  }
  return out;
};

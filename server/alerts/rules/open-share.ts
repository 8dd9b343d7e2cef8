import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import type { Condition } from '../types.ts';
import { hysteresis, type Rule, type RulesConfig } from './context.ts';

/** Open share over the last `window_s`: fires at `fire_share`, resolves below `resolve_share`. */
export const openShareRule: Rule<RulesConfig['open_share']> = async (ctx, cfg) => {
  const out: Condition[] = [];
  for (const [keyId, a] of await ctx.analysesOver(cfg.window_s)) {
    const value = a.clients.open_share;
    out.push({
      fingerprint: fingerprint('open_share', a.info.key),
      rule: 'open_share',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status: hysteresis(value, cfg.fire_share, cfg.resolve_share),
      value,
      text: `open ${pct(value)} of the last ${duration(cfg.window_s)} (${a.state.text})`,
    });
  }
  return out;
};

import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import type { Condition } from '../types.ts';
import { hysteresis, type Rule, type RulesConfig } from './context.ts';
import { openShareOnset } from './open-share-onset.ts';

/** Open share over the last `window_s`: fires at `fire_share`, resolves below `resolve_share`; `for_s` from the data onset (open-share-onset.ts). */
export const openShareRule: Rule<RulesConfig['open_share']> = async (ctx, cfg) => {
  const out: Condition[] = [];
  for (const [keyId, a] of await ctx.analysesOver(cfg.window_s)) {
    const value = a.clients.open_share;
    const status = hysteresis(value, cfg.fire_share, cfg.resolve_share);
    const onset = status === 'fire' && cfg.for_s > 0 ? await openShareOnset(ctx, keyId, cfg.fire_share, cfg.window_s) : undefined;
    out.push({
      fingerprint: fingerprint('open_share', a.info.key),
      rule: 'open_share',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status,
      value,
      text: `open ${pct(value)} of the last ${duration(cfg.window_s)} (${a.state.text})`,
      ...(onset === undefined ? {} : { onset }),
    });
  }
  return out;
};

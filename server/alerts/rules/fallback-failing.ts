import { ERROR_CLASSES } from '@breakerbox/protocol';
import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import { classList } from '../../verdicts/text.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';
import { failingFallbacks, fallbackText } from './fallback-chain.ts';

/**
 * Fallback failing, per primary key (docs/alerts.md, "fallback_failing"): the operation's
 * users saw failures because its fallbacks failed — at least `fire_share` of at least
 * `min_invocations` fallback invocations in `window_s` failed, whatever state the primary's
 * breaker is in (a primary failing with classes that fall back, quota say, never opens it);
 * or, as before, at least `min_failures` failed while the breaker was open (or is open now).
 * The text names the primary's failure classes and the failing fallbacks (from the primary's
 * config event and the fallback keys' own windows). No hysteresis: it resolves as soon as
 * neither holds.
 */
export const fallbackFailingRule: Rule<RulesConfig['fallback_failing']> = async (ctx, cfg) => {
  const out: Condition[] = [];
  const from = ctx.now - cfg.window_s * 1000;
  // The common case, no fallback failing anywhere, costs one small query and no analysis.
  const failures = await ctx.storage.rollups.fallbackFailures(from - (from % 60_000), ctx.now);
  if (failures < cfg.min_failures) return out;
  const analyses = await ctx.analysesOver(cfg.window_s);
  for (const [keyId, a] of analyses) {
    const { invoked, failed } = a.clients.fallback;
    if (failed === 0) continue;
    const open = (a.clients.open_share ?? 0) > 0 || a.state.open + a.state.half_open > 0;
    const share = invoked > 0 ? failed / invoked : 1;
    const byShare = invoked >= cfg.min_invocations && share >= cfg.fire_share;
    const fire = byShare || (open && failed >= cfg.min_failures);
    const primary = classList(a.clients.errors, ERROR_CLASSES);
    const levels = fire ? await failingFallbacks(ctx, a, analyses) : [];
    const which = levels.length > 0 ? levels.map(fallbackText).join('; ') : 'the tasks do not say which fallback failed';
    const state = open ? `while the breaker was open (${a.state.text})` : `with the breaker ${a.state.text}`;
    out.push({
      fingerprint: fingerprint('fallback_failing', a.info.key),
      rule: 'fallback_failing',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status: fire ? 'fire' : 'clear',
      value: failed,
      text: `${failed} of ${invoked} fallback invocations failed in the last ${duration(cfg.window_s)} ${state} (${pct(share)}): ${primary ? `primary failed with ${primary}` : 'no failed primary call'}; ${which}`,
    });
  }
  return out;
};

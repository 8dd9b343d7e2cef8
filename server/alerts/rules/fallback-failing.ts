import { fingerprint } from '../fingerprint.ts';
import { duration } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

/**
 * Fallback failing: fallback failures (of the services reporting the key) while the key's
 * breaker was open in the window — the incident behind the incident. No hysteresis: it
 * resolves as soon as a window passes without both.
 */
export const fallbackFailingRule: Rule<RulesConfig['fallback_failing']> = async (ctx, cfg) => {
  const out: Condition[] = [];
  const from = ctx.now - cfg.window_s * 1000;
  // The common case, no fallback failing anywhere, costs one small query and no analysis.
  const failures = await ctx.storage.rollups.fallbackFailures(from - (from % 60_000), ctx.now);
  if (failures < cfg.min_failures) return out;
  for (const [keyId, a] of await ctx.analysesOver(cfg.window_s)) {
    if (a.clients.fallback.failed === 0) continue;
    const open = (a.clients.open_share ?? 0) > 0 || a.state.open + a.state.half_open > 0;
    const failed = a.clients.fallback.failed;
    out.push({
      fingerprint: fingerprint('fallback_failing', a.info.key),
      rule: 'fallback_failing',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status: open && failed >= cfg.min_failures ? 'fire' : 'clear',
      value: failed,
      text: `${failed} of ${a.clients.fallback.invoked} fallback invocations failed in the last ${duration(cfg.window_s)} while the breaker was open (${a.state.text})`,
    });
  }
  return out;
};

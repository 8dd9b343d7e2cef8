import { fingerprint } from '../fingerprint.ts';
import { duration } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

const usd = (x: number) => `$${x < 0.01 ? x.toPrecision(2) : x.toFixed(4)}`;

/**
 * Cost per successful task per operation over the last `window_s` against its own trailing
 * `baseline_s` before that window: fires at `fire_ratio` ×, resolves below `resolve_ratio` ×.
 * Too few completed tasks on either side clears it (no judgement on noise).
 */
export const costPerSuccessRule: Rule<RulesConfig['cost_per_success']> = async (ctx, cfg) => {
  const windowStart = ctx.now - cfg.window_s * 1000;
  const baseStart = windowStart - cfg.baseline_s * 1000;
  const rows = await ctx.storage.rollups.costSplit(baseStart - (baseStart % 60_000), windowStart, ctx.now);
  const out: Condition[] = [];
  for (const { operation, cost, completed, baseCost, baseCompleted } of rows) {
    const enough = completed >= cfg.min_tasks && baseCompleted >= cfg.min_tasks && baseCost > 0;
    const now = completed > 0 ? cost / completed : 0;
    const base = baseCompleted > 0 ? baseCost / baseCompleted : 0;
    const ratio = enough ? now / base : null;
    let status: Condition['status'] = 'clear';
    if (ratio !== null) status = ratio >= cfg.fire_ratio ? 'fire' : ratio < cfg.resolve_ratio ? 'clear' : 'hold';
    out.push({
      fingerprint: fingerprint('cost_per_success', null, null, operation),
      rule: 'cost_per_success',
      keyId: null,
      key: null,
      location: null,
      operation,
      status,
      value: ratio === null ? null : Number(ratio.toFixed(3)),
      text: enough
        ? `${operation}: cost per successful task ${usd(now)} over the last ${duration(cfg.window_s)}, ${ratio!.toFixed(1)}× its ${duration(cfg.baseline_s)} baseline ${usd(base)}`
        : `${operation}: too few completed tasks to compare cost (${completed} now, ${baseCompleted} in the baseline)`,
    });
  }
  return out;
};

import type { Condition, RuleName } from './types.ts';
import { RULES } from './types.ts';
import type { Rule, RuleContext, RulesConfig } from './rules/context.ts';
import { clientsDegradedRule } from './rules/clients-degraded.ts';
import { costPerSuccessRule } from './rules/cost-per-success.ts';
import { fallbackFailingRule } from './rules/fallback-failing.ts';
import { flappingRule } from './rules/flapping.ts';
import { openShareRule } from './rules/open-share.ts';
import { probeFailingRule } from './rules/probe-failing.ts';
import { proberSilentRule } from './rules/prober-silent.ts';
import { proberUnhealthyRule } from './rules/prober-unhealthy.ts';
import { modelRetiringRule } from './rules/model-retiring.ts';
import { servingDegradedRule } from './rules/serving-degraded.ts';

/** Every rule by name, one file each under rules/: adding a rule is a file, an entry here and its config. */
export const RULE_REGISTRY: { [R in RuleName]: Rule<RulesConfig[R]> } = {
  flapping: flappingRule,
  open_share: openShareRule,
  fallback_failing: fallbackFailingRule,
  probe_failing: probeFailingRule,
  cost_per_success: costPerSuccessRule,
  prober_unhealthy: proberUnhealthyRule,
  clients_degraded: clientsDegradedRule,
  prober_silent: proberSilentRule,
  model_retiring: modelRetiringRule,
  serving_degraded: servingDegradedRule,
};

/** Stage 1: the conditions of every enabled rule, in `RULES` order. */
export async function runRules(ctx: RuleContext, config: RulesConfig, registry: { [R in RuleName]: Rule<RulesConfig[R]> } = RULE_REGISTRY): Promise<Condition[]> {
  const out: Condition[] = [];
  for (const name of RULES) {
    const cfg = config[name];
    if (!cfg.enabled) continue;
    out.push(...(await (registry[name] as Rule<typeof cfg>)(ctx, cfg)));
  }
  return out;
}

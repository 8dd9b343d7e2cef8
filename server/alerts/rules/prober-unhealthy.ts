import { fingerprint } from '../fingerprint.ts';
import type { Condition } from '../types.ts';
import type { RuleContext, Rule, RulesConfig } from './context.ts';
import type { LocationHealth } from '../../verdicts/prober-health.ts';

/** The prober locations' health over the verdict window (the same for every key's analysis). */
export async function locationHealth(ctx: RuleContext): Promise<Map<string, LocationHealth>> {
  for (const a of (await ctx.verdictAnalyses()).values()) return a.proberHealth;
  return new Map();
}

/**
 * Prober unhealthy, per location: the location's probes fail across many keys and providers
 * at once (docs/alerts.md, "Prober health") — whoever runs that prober is told, and its
 * probes are set aside for verdicts. Resolves when the location is judged healthy again or
 * stops probing.
 */
export const proberUnhealthyRule: Rule<RulesConfig['prober_unhealthy']> = async (ctx) => {
  const out: Condition[] = [];
  for (const h of (await locationHealth(ctx)).values()) {
    out.push({
      fingerprint: fingerprint('prober_unhealthy', null, h.location),
      rule: 'prober_unhealthy',
      keyId: null,
      key: null,
      location: h.location,
      operation: null,
      status: h.status === 'unhealthy' ? 'fire' : 'clear',
      value: h.failing_keys,
      text: h.reason ?? `prober location ${h.location}: ${h.failing_keys} of ${h.keys} keys failing — healthy`,
    });
  }
  return out;
};

import { K, addInto, newKeySums } from '../../verdicts/counters.ts';
import { clientFigures, type VerdictThresholds } from '../../verdicts/figures.ts';
import type { KeyAnalysis } from '../../verdicts/analyse.ts';
import { onsetSpan, runOnset, type MinuteHolds } from '../data-onset.ts';
import type { RuleContext } from './context.ts';

/**
 * Whether one minute's sums of a key (or of one service's calls of it) are degraded on their
 * own: the verdict thresholds' error, slow or rejection share (docs/alerts.md, "Verdict
 * rules"), or calls short-circuited by an open breaker; `min_calls` is the window's, not a
 * minute's (the window's condition already has it). Null: no call, rejection or refusal.
 */
export function minuteDegraded(sums: Float64Array | undefined, t: VerdictThresholds): MinuteHolds {
  if (!sums || sums[K.calls]! + sums[K.rejected]! + sums[K.shortCircuited]! === 0) return null;
  if (sums[K.shortCircuited]! > 0) return true;
  const f = clientFigures(sums, { spanMs: 60_000, openShare: null, instances: 0, services: 0, fallback: { invoked: 0, failed: 0 } }, { ...t, min_calls: 1 });
  return f.degraded;
}

/**
 * The data onset of a `clients_degraded` condition (server/alerts/data-onset.ts): the run of
 * minutes, ending now, in which the part that pages — the key's calls as a whole, or each
 * hurt service's own calls — was degraded minute by minute; with several hurt services the
 * earliest of their runs. One read of the key's per-minute sums over the rule's window.
 */
export async function clientsOnset(ctx: RuleContext, a: KeyAnalysis, hurt: readonly string[] | null, windowS: number): Promise<number | undefined> {
  const t = ctx.thresholds;
  if (!t) return undefined;
  const { first, end } = onsetSpan(ctx.now, windowS);
  const minutes = await ctx.storage.rollups.keyMinutes(a.info.id, first, end);
  // The service ids of the hurt services, by name, from the instances that reported the key.
  const parts: (ReadonlySet<number> | null)[] = hurt === null ? [null] : hurt.map((name) => new Set(a.instances.filter((s) => s.service === name).map((s) => s.serviceId)));
  let onset: number | undefined;
  for (const ids of parts) {
    if (ids?.size === 0) continue;
    const holds = (m: number): MinuteHolds => {
      const byService = minutes.get(m);
      if (!byService) return null;
      const sums = newKeySums();
      let any = false;
      for (const [service, s] of byService) {
        if (ids && !ids.has(service)) continue;
        addInto(sums, s);
        any = true;
      }
      return any ? minuteDegraded(sums, t) : null;
    };
    const at = runOnset(holds, ctx.now, windowS);
    if (at !== undefined && (onset === undefined || at < onset)) onset = at;
  }
  return onset;
}

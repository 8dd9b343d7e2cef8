import { createOpenShareReader } from '../../verdicts/open-share.ts';
import { onsetSpan, runOnset, type MinuteHolds } from '../data-onset.ts';
import type { RuleContext } from './context.ts';

const MINUTE = 60_000;

/**
 * The data onset of an `open_share` condition (server/alerts/data-onset.ts): the run of
 * minutes, ending now, in each of which the key's breakers were open for at least `fireShare`
 * of its instance time (open time from the raw transitions, replayed as the verdicts replay
 * them; instance time: the instances reporting the key that minute, and never less than the
 * open time). Minutes with neither a report nor open time have no data.
 */
export async function openShareOnset(ctx: RuleContext, keyId: number, fireShare: number, windowS: number): Promise<number | undefined> {
  const t = ctx.thresholds;
  if (!t) return undefined;
  const { first, end } = onsetSpan(ctx.now, windowS);
  const reader = createOpenShareReader(ctx.storage.events, { idleAfterMs: t.open_idle_after_s * 1000 });
  const [sources, perMinute] = await Promise.all([ctx.storage.rollups.keySources(first, end, keyId), ctx.storage.rollups.sourcesPerMinute(keyId, first, end)]);
  const open = await reader.compute(first, end, sources, keyId);
  const intervals = open.intervals.get(keyId) ?? [];
  const holds = (m: number): MinuteHolds => {
    const stop = Math.min(m + MINUTE, ctx.now);
    let openMs = 0;
    for (const [, start, finish] of intervals) openMs += Math.max(0, Math.min(finish, stop) - Math.max(start, m));
    const instances = perMinute.get(m) ?? 0;
    if (instances === 0 && openMs === 0) return null;
    return openMs / Math.max(openMs, instances * (stop - m)) >= fireShare;
  };
  return runOnset(holds, ctx.now, windowS);
}

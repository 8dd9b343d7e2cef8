import { TASK_COLUMNS } from '@breakerbox/protocol';
import { clockTime } from '../../verdicts/evidence.ts';
import { onsetSpan, runOnset, type MinuteHolds } from '../data-onset.ts';
import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

const MINUTE = 60_000;
/** Where `completed` and `level0` sit in a `TaskMinuteRow`'s values: the rollup's one column list says. */
const COMPLETED = TASK_COLUMNS.indexOf('completed');
const LEVEL0 = TASK_COLUMNS.indexOf('level0');
/** The SDK's failover levels: 0 the primary … the last, the degraded (cached or templated) answer. */
const LAST_LEVEL = TASK_COLUMNS.filter((c) => /^level\d+$/.test(c)).length - 1;

/** "level 4", "levels 3–4". */
const levelsText = (from: number) => (from === LAST_LEVEL ? `level ${from}` : `levels ${from}–${LAST_LEVEL}`);

/**
 * Serving degraded, per operation (docs/alerts.md, "serving_degraded"): over the last
 * `window_s`, at least `fire_share` of the operation's completed tasks (at least `min_tasks`)
 * were answered at failover level `from_level` or later — the cheaper model, a cached or
 * templated answer — and the newest minute with tasks still is. The page names the operation,
 * the levels and since when: the data onset (data-onset.ts), the run of minutes each answered
 * at those levels for at least `fire_share` of its tasks on its own, minutes without tasks
 * passed over. Once the operation is back on the levels before `from_level` it holds for
 * `resolve_s` (a breaker that trips again within it is the same episode), then resolves —
 * not when the window's share falls, hours later.
 *
 * The common case, no operation over the share, is one grouped read of the window
 * (`taskLevelSums`); only an operation over it has its minutes read (`taskMinutes`, by operation).
 */
export const servingDegradedRule: Rule<RulesConfig['serving_degraded']> = async (ctx, cfg) => {
  const { first, end } = onsetSpan(ctx.now, cfg.window_s);
  const from = ctx.now - cfg.window_s * 1000;
  const windowFirst = from - (from % MINUTE);
  const levels = levelsText(cfg.from_level);
  const out: Condition[] = [];
  for (const { operation, completed, levels: byLevel } of await ctx.storage.rollups.taskLevelSums(windowFirst, end)) {
    const low = byLevel.slice(cfg.from_level).reduce((a, b) => a + b, 0);
    const share = completed > 0 ? low / completed : 0;
    const enough = completed >= cfg.min_tasks;
    let onset: number | undefined;
    // Back on the better levels: the end of the newest minute that still held.
    let lastHeld: number | undefined;
    if (enough && share >= cfg.fire_share) {
      const minutes = new Map((await ctx.storage.rollups.taskMinutes(first, end, operation)).map((r) => [r.minute, r.values]));
      const holds = (m: number): MinuteHolds => {
        const v = minutes.get(m);
        if (!v || v[COMPLETED]! === 0) return null;
        let n = 0;
        for (let l = cfg.from_level; l <= LAST_LEVEL; l++) n += v[LEVEL0 + l]!;
        return n / v[COMPLETED]! >= cfg.fire_share;
      };
      onset = runOnset(holds, ctx.now, cfg.window_s, true);
      if (onset === undefined) for (let m = end - (end % MINUTE); m >= windowFirst && lastHeld === undefined; m -= MINUTE) if (holds(m) === true) lastHeld = m + MINUTE;
    }
    let status: Condition['status'] = 'clear';
    if (onset !== undefined) status = 'fire';
    else if (lastHeld !== undefined && ctx.now - lastHeld < cfg.resolve_s * 1000) status = 'hold';
    const split = byLevel.slice(cfg.from_level).map((n, i) => `level ${cfg.from_level + i}: ${n}`).join(', ');
    const figures = `${low} of ${completed} completed tasks (${pct(share)}) answered at ${levels} over the last ${duration(cfg.window_s)} (${split})`;
    let text: string;
    if (!enough) text = `${operation}: too few completed tasks to judge its serving levels (${completed} in the last ${duration(cfg.window_s)}, ${cfg.min_tasks} needed)`;
    else if (onset !== undefined) text = `${operation}: served from ${levels} since ${clockTime(onset)} — ${figures}`;
    else if (lastHeld !== undefined) text = `${operation}: back on levels 0–${cfg.from_level - 1} since ${clockTime(lastHeld)} — ${figures}`;
    else text = `${operation}: ${figures}`;
    out.push({
      fingerprint: fingerprint('serving_degraded', null, null, operation),
      rule: 'serving_degraded',
      keyId: null,
      key: null,
      location: null,
      operation,
      status,
      value: enough ? Number(share.toFixed(3)) : null,
      text,
      ...(onset === undefined ? {} : { onset }),
    });
  }
  return out;
};

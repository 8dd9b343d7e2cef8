import { clockTime } from '../../verdicts/evidence.ts';
import type { TaskMinuteRow } from '../../storage/parts/rollups.ts';
import { onsetSpan, runOnset, type MinuteHolds } from '../data-onset.ts';
import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

const MINUTE = 60_000;
/** Where `completed` and `level0` sit in a `TaskMinuteRow`'s values (TASK_COLUMNS order). */
const COMPLETED = 0;
const LEVEL0 = 5;
/** The SDK's failover levels: 0 the primary … 4 the degraded (cached or templated) answer. */
const LAST_LEVEL = 4;

/** One operation's completed tasks and those answered at `from_level` or later, per level. */
interface Served {
  completed: number;
  /** Tasks answered at each level from `from_level` to 4. */
  low: number[];
}

const lowOf = (s: Served) => s.low.reduce((a, b) => a + b, 0);

function addRow(into: Served, values: readonly number[], fromLevel: number): void {
  into.completed += values[COMPLETED]!;
  for (let l = fromLevel; l <= LAST_LEVEL; l++) into.low[l - fromLevel]! += values[LEVEL0 + l]!;
}

/** "level 3", "levels 3–4". */
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
 * One read: the task rollups per operation and minute over the window (`taskMinutes`, the
 * cost view's read), summed here.
 */
export const servingDegradedRule: Rule<RulesConfig['serving_degraded']> = async (ctx, cfg) => {
  const { first, end } = onsetSpan(ctx.now, cfg.window_s);
  const from = ctx.now - cfg.window_s * 1000;
  const windowFirst = from - (from % MINUTE);
  const width = LAST_LEVEL - cfg.from_level + 1;
  const byOperation = new Map<string, TaskMinuteRow[]>();
  for (const row of await ctx.storage.rollups.taskMinutes(first, end)) {
    let rows = byOperation.get(row.operation);
    if (!rows) byOperation.set(row.operation, (rows = []));
    rows.push(row);
  }
  const out: Condition[] = [];
  for (const [operation, rows] of byOperation) {
    const total: Served = { completed: 0, low: new Array<number>(width).fill(0) };
    const minutes = new Map<number, readonly number[]>();
    for (const r of rows) {
      minutes.set(r.minute, r.values);
      if (r.minute >= windowFirst) addRow(total, r.values, cfg.from_level);
    }
    const low = lowOf(total);
    const share = total.completed > 0 ? low / total.completed : 0;
    const enough = total.completed >= cfg.min_tasks;
    const holds = (m: number): MinuteHolds => {
      const v = minutes.get(m);
      if (!v || v[COMPLETED]! === 0) return null;
      const s: Served = { completed: 0, low: new Array<number>(width).fill(0) };
      addRow(s, v, cfg.from_level);
      return lowOf(s) / s.completed >= cfg.fire_share;
    };
    const over = enough && share >= cfg.fire_share;
    const onset = over ? runOnset(holds, ctx.now, cfg.window_s, true) : undefined;
    // Back on the better levels: since the end of the newest minute that still held.
    let lastHeld: number | undefined;
    if (over && onset === undefined) for (let m = end - (end % MINUTE); m >= windowFirst && lastHeld === undefined; m -= MINUTE) if (holds(m) === true) lastHeld = m + MINUTE;
    let status: Condition['status'] = 'clear';
    if (onset !== undefined) status = 'fire';
    else if (lastHeld !== undefined && ctx.now - lastHeld < cfg.resolve_s * 1000) status = 'hold';
    const levels = levelsText(cfg.from_level);
    const split = total.low.map((n, i) => `level ${cfg.from_level + i}: ${n}`).join(', ');
    const figures = `${low} of ${total.completed} completed tasks (${pct(share)}) answered at ${levels} over the last ${duration(cfg.window_s)} (${split})`;
    let text: string;
    if (!enough) text = `${operation}: too few completed tasks to judge its serving levels (${total.completed} in the last ${duration(cfg.window_s)}, ${cfg.min_tasks} needed)`;
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

import type { RollupsPart } from '../storage/storage.ts';
import { floorMinute, type TimeRange } from './window.ts';
import type { CostView, OperationCost } from '../schemas/cost.ts';
import { TASK_COLUMNS } from '@breakerbox/protocol';

const MINUTE = 60_000;
const DAY = 86_400_000;
const LEVELS = ['0', '1', '2', '3', '4'] as const;
type Levels = Record<(typeof LEVELS)[number], number | null>;

export type { CostView, OperationCost } from '../schemas/cost.ts';

// Column positions of the task rollup rows, read from the one column list.
const col = (name: string) => {
  const i = TASK_COLUMNS.indexOf(name);
  if (i < 0) throw new Error(`TASK_COLUMNS has no ${name}`);
  return i;
};
const C = {
  completed: col('completed'), failed: col('failed'), degraded: col('degraded'), attempts: col('attempts'), cost: col('cost_usd'),
  level0: col('level0'), invoked: col('fallback_invoked'), fbFailed: col('fallback_failed'),
} as const;
const WIDTH = TASK_COLUMNS.length;
// The levels are consecutive columns, level0 first, one per LEVELS entry.
if (LEVELS.some((l, i) => col(`level${l}`) !== C.level0 + i)) throw new Error('TASK_COLUMNS levels are not consecutive');

const perSuccess = (cost: number, completed: number) => (completed > 0 ? Number((cost / completed).toFixed(8)) : null);

function levelShares(v: Float64Array): Levels {
  let served = 0;
  for (let i = 0; i < LEVELS.length; i++) served += v[C.level0 + i]!;
  const out = {} as Levels;
  LEVELS.forEach((l, i) => {
    out[l] = served > 0 ? Number((v[C.level0 + i]! / served).toFixed(4)) : null;
  });
  return out;
}

/**
 * Cost per successful task per operation over the window and per step, each against its own
 * trailing baseline (the `baseline_ms` before), with failover level shares, from the task rollups.
 */
export async function costView(rollups: Pick<RollupsPart, 'taskMinutes' | 'taskServices'>, range: TimeRange, step: number, operation?: string, baselineMs = DAY): Promise<CostView> {
  const first = floorMinute(range.from);
  const dataFirst = first - baselineMs;
  const [rows, serviceRows] = await Promise.all([rollups.taskMinutes(dataFirst, range.to, operation), rollups.taskServices(first, range.to, operation)]);

  const minutes = Math.ceil((range.to - dataFirst) / MINUTE);
  const byOp = new Map<string, Float64Array>();
  for (const row of rows) {
    let data = byOp.get(row.operation);
    if (!data) byOp.set(row.operation, (data = new Float64Array(minutes * WIDTH)));
    const at = ((row.minute - dataFirst) / MINUTE) * WIDTH;
    for (let i = 0; i < WIDTH; i++) data[at + i] = row.values[i] ?? 0;
  }

  const operations: OperationCost[] = [];
  for (const [op, data] of [...byOp].sort(([a], [b]) => a.localeCompare(b))) {
    // Prefix sums: any span's totals in O(WIDTH), so each point's 24 h baseline is cheap.
    const prefix = new Float64Array((minutes + 1) * WIDTH);
    for (let m = 0; m < minutes; m++) {
      for (let i = 0; i < WIDTH; i++) prefix[(m + 1) * WIDTH + i] = prefix[m * WIDTH + i]! + data[m * WIDTH + i]!;
    }
    const sum = (from: number, to: number) => {
      const v = new Float64Array(WIDTH);
      const a = Math.min(minutes, Math.max(0, Math.floor((from - dataFirst) / MINUTE)));
      const b = Math.min(minutes, Math.max(a, Math.ceil((to - dataFirst) / MINUTE)));
      for (let i = 0; i < WIDTH; i++) v[i] = prefix[b * WIDTH + i]! - prefix[a * WIDTH + i]!;
      return v;
    };
    const win = sum(first, range.to);
    if (win[C.completed]! + win[C.failed]! + win[C.attempts]! === 0) continue;
    const base = sum(first - baselineMs, first);
    const cps = perSuccess(win[C.cost]!, win[C.completed]!);
    const baseCps = perSuccess(base[C.cost]!, base[C.completed]!);
    const series: OperationCost['series'] = [];
    for (let t = first; t < range.to; t += step) {
      const v = sum(t, t + step);
      const b = sum(t - baselineMs, t);
      series.push({
        t,
        completed: v[C.completed]!,
        failed: v[C.failed]!,
        attempts: v[C.attempts]!,
        cost_usd: Number(v[C.cost]!.toFixed(6)),
        cost_per_success: perSuccess(v[C.cost]!, v[C.completed]!),
        baseline: perSuccess(b[C.cost]!, b[C.completed]!),
        levels: levelShares(v),
      });
    }
    operations.push({
      operation: op,
      services: serviceRows.filter((r) => r.operation === op).map((r) => r.service),
      completed: win[C.completed]!,
      failed: win[C.failed]!,
      degraded: win[C.degraded]!,
      attempts: win[C.attempts]!,
      cost_usd: Number(win[C.cost]!.toFixed(6)),
      cost_per_success: cps,
      baseline: { from: first - baselineMs, to: first, cost_per_success: baseCps, completed: base[C.completed]! },
      ratio: cps !== null && baseCps !== null && baseCps > 0 ? Number((cps / baseCps).toFixed(4)) : null,
      levels: levelShares(win),
      fallback: { invoked: win[C.invoked]!, failed: win[C.fbFailed]! },
      series,
    });
  }
  return { window: range, step_ms: step, baseline_ms: baselineMs, operations };
}

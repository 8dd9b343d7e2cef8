import { fingerprint } from '../fingerprint.ts';
import type { ProbeOutcomeMinute } from '../../storage/storage.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';
import { locationHealth } from './prober-unhealthy.ts';

/** Recent minutes read first: in them almost every key and location already ends its run (resolve_consecutive ok probes, or a change of outcome). */
const RECENT_MS = 10 * 60_000;

/** One key and location's run, newest probe first: failed or ok probes in a row, and whether an outcome change ended it. */
interface Run {
  keyId: number;
  location: string;
  failedRun: number;
  okRun: number;
  ended: boolean;
  /** The failed run's probes per minute, newest minute first (its data onset). */
  failedMinutes: [number, number][];
}

/** Counts one more failed probe of the run in `minute` (the run goes back in time: an older minute is a new entry). */
function countFailed(run: Run, minute: number): void {
  const last = run.failedMinutes.at(-1);
  if (last && last[0] === minute) last[1]++;
  else run.failedMinutes.push([minute, 1]);
}

/**
 * The data onset of a failed run (server/alerts/data-onset.ts): the end of the minute that
 * holds its `consecutive`-th failed probe counted from the oldest — the condition held from
 * that probe on, somewhere in that minute — and never later than `now`.
 */
function failedRunOnset(run: Run, consecutive: number, now: number): number {
  let seen = 0;
  for (let i = run.failedMinutes.length - 1; i >= 0; i--) {
    const [minute, n] = run.failedMinutes[i]!;
    seen += n;
    if (seen >= consecutive) return Math.min(now, minute + 60_000);
  }
  return now;
}

/**
 * Probe failing, per key and location: fires after `consecutive` failed (error or slow)
 * warm probes in a row, resolves after `resolve_consecutive` ok ones in a row (or when the
 * location stops probing the key within `lookback_s`). Runs are read from the per-minute
 * probe rollups, newest minute first; where a minute holds both outcomes (the rollup keeps
 * no order inside it) that minute's raw probes are read, newest first, to finish the run —
 * so a burst of failed on-demand probes right after an ok scheduled one counts. Its `for_s`
 * runs from the data onset of the failed run.
 */
export const probeFailingRule: Rule<RulesConfig['probe_failing']> = async (ctx, cfg) => {
  const from = ctx.now - cfg.lookback_s * 1000;
  const first = from - (from % 60_000);
  const split = Math.max(first, ctx.now - (ctx.now % 60_000) - RECENT_MS);
  // An unhealthy prober location is one alert of its own (prober_unhealthy), not one per key: its runs are not followed.
  const unhealthy = new Set([...(await locationHealth(ctx)).values()].filter((h) => h.status === 'unhealthy').map((h) => h.location));
  const runs = new Map<string, Run>();
  /** Continues each run over `rows`, all older than the minutes it already went through. */
  const extend = async (rows: ProbeOutcomeMinute[]) => {
    const groups = new Map<string, { run: Run; minutes: [number, number, number][] }>();
    for (const { keyId, location, minute, probes, ok } of rows) {
      const id = `${keyId}\u0000${location}`;
      let g = groups.get(id);
      if (!g) {
        let run = runs.get(id);
        if (!run) runs.set(id, (run = { keyId, location, failedRun: 0, okRun: 0, ended: unhealthy.has(location), failedMinutes: [] }));
        groups.set(id, (g = { run, minutes: [] }));
      }
      g.minutes.push([minute, probes, ok]);
    }
    for (const { run, minutes } of groups.values()) {
      if (run.ended) continue;
      minutes.sort((a, b) => b[0] - a[0]);
      for (const [minute, probes, ok] of minutes) {
        if (ok === 0 && run.okRun === 0) {
          run.failedRun += probes;
          run.failedMinutes.push([minute, probes]);
        } else if (ok === probes && run.failedRun === 0) run.okRun += probes;
        else {
          // Outcomes change here: in a mixed minute, its newest probes may still extend the run.
          if (ok !== 0 && ok !== probes) {
            for (const outcome of await ctx.storage.events.warmOutcomes(run.keyId, run.location, minute, minute + 60_000, ctx.now)) {
              if (outcome !== 'ok' && run.okRun === 0) {
                run.failedRun++;
                countFailed(run, minute);
              } else if (outcome === 'ok' && run.failedRun === 0) run.okRun++;
              else break;
            }
          }
          run.ended = true;
          break;
        }
      }
    }
  };
  await extend(await ctx.storage.rollups.probeOutcomes(split, ctx.now));
  if (split > first) {
    // Older minutes change only runs still going (a failed run, or fewer ok probes than resolve) and keys and locations
    // not probed lately; the others' rows are left in the storage. Same runs as reading the whole lookback at once.
    const settled = [...runs.values()].filter((r) => r.ended || r.okRun >= cfg.resolve_consecutive);
    await extend(await ctx.storage.rollups.probeOutcomes(first, split - 1, settled));
  }

  const out: Condition[] = [];
  for (const run of runs.values()) {
    const { keyId, location, failedRun, okRun } = run;
    if (unhealthy.has(location)) continue;
    // Only targets that are not clear need a condition; an alert left without one resolves.
    if (okRun >= cfg.resolve_consecutive) continue;
    const head = await ctx.storage.events.lastWarmProbe(keyId, location, ctx.now);
    if (!head) continue;
    const { key } = head;
    const detail = head.outcome === 'ok' ? 'ok' : `${head.outcome}${head.errorClass ? ` ${head.errorClass}` : ''}${head.status ? ` ${head.status}` : ''}`;
    const misconfigured = head.errorClass === 'auth' || head.errorClass === 'bad_request';
    out.push({
      fingerprint: fingerprint('probe_failing', key, location),
      rule: 'probe_failing',
      keyId,
      key,
      location,
      operation: null,
      status: failedRun >= cfg.consecutive ? 'fire' : 'hold',
      value: failedRun,
      ...(failedRun >= cfg.consecutive && cfg.for_s > 0 ? { onset: failedRunOnset(run, cfg.consecutive, ctx.now) } : {}),
      text:
        failedRun > 0
          ? `probe from ${location} failed ${failedRun} times in a row (last: ${detail})${misconfigured ? ' — the probe itself looks misconfigured' : ''}`
          : `probe from ${location} ok ${okRun} time${okRun === 1 ? '' : 's'} in a row`,
    });
  }
  return out;
};

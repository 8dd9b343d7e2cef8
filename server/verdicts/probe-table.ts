import { addInto, newProbeSums, type ProbeSums } from './counters.ts';
import type { ProbeMinute, RollupsPart } from '../storage/storage.ts';
import { probeFigures, type VerdictThresholds } from './figures.ts';
import type { ProbeFigures } from './types.ts';
import { floorMinute, type TimeRange } from './window.ts';
import type { MinuteWindow } from './minute-window.ts';

/** Probe figures of every key over a window (`all`), and of several keys merged (`merged`, an alias join). */
export type ProbeTable = Awaited<ReturnType<typeof probeTable>>;

/** Probe figures of every key over the window, and of several keys merged (an alias join). */
export async function probeTable(deps: { storage: { rollups: RollupsPart }; thresholds: VerdictThresholds; minutes?: MinuteWindow }, range: TimeRange) {
  const { thresholds: t } = deps;
  const reader = deps.storage.rollups;
  const first = floorMinute(range.from);
  const recentFirst = Math.max(first, floorMinute(range.to - t.probe_recent_lookback_s * 1000));
  // A window no longer than the recent-probe lookback is read once, minute by minute.
  const kept = recentFirst === first ? await deps.minutes?.read(first, range.to) : null;
  const both = kept ? { sums: kept.probeSums, recent: kept.recent } : recentFirst === first ? await reader.probesBoth(first, range.to) : null;
  const sums = both?.sums ?? (await reader.probeSums(first, range.to));
  const recent = both?.recent ?? (await reader.recentProbes(recentFirst, range.to));
  const all = new Map<number, Record<string, ProbeFigures>>();
  for (const id of new Set([...sums.keys(), ...recent.keys()])) {
    const out: Record<string, ProbeFigures> = {};
    const locations = new Set<string>([...(sums.get(id)?.keys() ?? []), ...(recent.get(id)?.keys() ?? [])]);
    for (const location of [...locations].sort()) {
      out[location] = probeFigures(sums.get(id)?.get(location) ?? newProbeSums(), recent.get(id)?.get(location) ?? [], t);
    }
    all.set(id, out);
  }
  return {
    all,
    merged(ids: number[]): Record<string, ProbeFigures> {
      const bySum = new Map<string, ProbeSums>();
      const byRecent = new Map<string, ProbeMinute[]>();
      for (const id of ids) {
        for (const [location, s] of sums.get(id) ?? []) {
          let acc = bySum.get(location);
          if (!acc) bySum.set(location, (acc = newProbeSums()));
          addInto(acc, s);
        }
        for (const [location, list] of recent.get(id) ?? []) byRecent.set(location, [...(byRecent.get(location) ?? []), ...list]);
      }
      const out: Record<string, ProbeFigures> = {};
      for (const location of [...new Set([...bySum.keys(), ...byRecent.keys()])].sort()) {
        const list = (byRecent.get(location) ?? []).sort((a, b) => b.minute - a.minute);
        out[location] = probeFigures(bySum.get(location) ?? newProbeSums(), list, t);
      }
      return out;
    },
    /** Forgets the raw sums and recent probes of keys `merged` will not be asked about (kept tables hold only alias groups'). */
    keepOnly(ids: ReadonlySet<number>): void {
      for (const id of [...sums.keys()]) if (!ids.has(id)) sums.delete(id);
      for (const id of [...recent.keys()]) if (!ids.has(id)) recent.delete(id);
    },
  };
}


import type { ChangeFeed } from '../storage/change-feed.ts';
import type { ProbeActivity, ProbeOutcomeMinute, RollupsPart } from '../storage/storage.ts';
import { floorMinute } from './window.ts';

const MINUTE = 60_000;

/**
 * One minute's warm probe rows (`probes > 0`), packed, in the order the rollup read returns
 * them for that minute alone (the primary key's: key id, then location as bytes). `probes`
 * and `ok` are dropped once the minute is older than the counts are read for (activity reads
 * only which pairs probed).
 */
interface Minute {
  keyIds: Int32Array;
  /** Index into the log's location names. */
  locations: Uint16Array;
  probes: Int32Array | null;
  ok: Int32Array | null;
}

/** The probe minutes the alert rules read (probe_failing, prober_silent), kept in memory; null: not kept, read the storage. */
export interface ProbeMinuteLog {
  /** `RollupsPart.probeOutcomes` over minutes kept with their counts (the same rows, in the storage's order); null otherwise. */
  probeOutcomes(first: number, last: number, except?: readonly { keyId: number; location: string }[]): Promise<ProbeOutcomeMinute[] | null>;
  /** `RollupsPart.probeActivity` over kept minutes (by key id, then location); null otherwise. */
  probeActivity(first: number, last: number): Promise<ProbeActivity[] | null>;
  /** Minutes and rows kept, and the bytes their arrays take. */
  size(): { minutes: number; rows: number; bytes: number };
}

/** The rollups part with `probeOutcomes` and `probeActivity` answered from `log` where it keeps the minutes, from `rollups` elsewhere. */
export function withProbeMinuteLog<R extends Pick<RollupsPart, 'probeOutcomes' | 'probeActivity'>>(rollups: R, log: ProbeMinuteLog): R {
  return {
    ...rollups,
    probeOutcomes: async (first, last, except) => (await log.probeOutcomes(first, last, except)) ?? rollups.probeOutcomes(first, last, except),
    probeActivity: async (first, last) => (await log.probeActivity(first, last)) ?? rollups.probeActivity(first, last),
  };
}

/**
 * Keeps the per-minute warm probe rows (key, location, probes, ok) of the latest `spanMs`, the
 * counts of the latest `countsMs`, and answers the alert rules' probe reads inside them from
 * memory (docs/verdict-engine.md). Each read asks the feed for the earliest minute written
 * since the previous read (late data included) and reads again only the minutes from there
 * on, and those not kept yet, one minute at a time (`probeOutcomes(m, m)`); pruning drops
 * everything. Only the writes the feed sees are seen: SQLite's, or every collector's on
 * PostgreSQL through the change log (counts only: no float sums to agree on).
 */
export function createProbeMinuteLog(reader: Pick<RollupsPart, 'probeOutcomes'>, feed: ChangeFeed, spanMs: number, countsMs: number): ProbeMinuteLog {
  const minutes = new Map<number, Minute>();
  const names: string[] = [];
  const indexOf = new Map<string, number>();
  let cursor = feed.cursor();
  let queue: Promise<unknown> = Promise.resolve();

  const locationIndex = (name: string) => {
    let i = indexOf.get(name);
    if (i === undefined) {
      if (names.length === 0xffff) throw new Error('more than 65,535 probe locations');
      indexOf.set(name, (i = names.length));
      names.push(name);
    }
    return i;
  };

  /** Brings `[first, last]` (minutes) up to date; `counts`: with their probe counts. */
  async function refresh(first: number, last: number, counts: boolean) {
    // Other collectors' writes (PostgreSQL's change log) into the feed first.
    await feed.sync?.();
    const at = feed.cursor();
    const { minuteFrom } = feed.since(cursor);
    const newest = Math.max(last, ...minutes.keys());
    for (const [m, x] of minutes) {
      if (m >= minuteFrom || m <= newest - spanMs) minutes.delete(m);
      else if (x.probes && m <= newest - countsMs) x.probes = x.ok = null;
    }
    // Every read after `at`: a write landing while these run is read again next time.
    cursor = at;
    for (let m = first; m <= last; m += MINUTE) {
      const kept = minutes.get(m);
      if (kept && (kept.probes || !counts)) continue;
      const rows = await reader.probeOutcomes(m, m);
      const x: Minute = { keyIds: new Int32Array(rows.length), locations: new Uint16Array(rows.length), probes: new Int32Array(rows.length), ok: new Int32Array(rows.length) };
      for (const [i, r] of rows.entries()) {
        x.keyIds[i] = r.keyId;
        x.locations[i] = locationIndex(r.location);
        x.probes![i] = r.probes;
        x.ok![i] = r.ok;
      }
      minutes.set(m, x);
    }
  }

  /** The whole minutes in `[first, last]`, or null when they do not fit in what is kept. */
  const span = (first: number, last: number, keepMs: number): [number, number] | null => {
    const a = Math.ceil(first / MINUTE) * MINUTE;
    const b = floorMinute(last);
    return b - a < keepMs - MINUTE ? [a, b] : null;
  };

  /** One read at a time: each refresh moves the cursor the next one starts from. */
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const p = queue.then(f);
    queue = p.then(() => undefined, () => undefined); // not its result: the queue keeps no answer alive
    return p;
  };

  return {
    probeOutcomes: (first, last, except) =>
      serial(async () => {
        const s = span(first, last, countsMs);
        if (!s) return null;
        await refresh(s[0], s[1], true);
        const skip = new Set((except ?? []).map((p) => `${p.keyId}\u0000${p.location}`));
        const out: ProbeOutcomeMinute[] = [];
        for (let m = s[0]; m <= s[1]; m += MINUTE) {
          const x = minutes.get(m)!;
          for (let i = 0; i < x.keyIds.length; i++) {
            const keyId = x.keyIds[i]!;
            const location = names[x.locations[i]!]!;
            if (skip.size > 0 && skip.has(`${keyId}\u0000${location}`)) continue;
            out.push({ keyId, location, minute: m, probes: x.probes![i]!, ok: x.ok![i]! });
          }
        }
        return out;
      }),
    probeActivity: (first, last) =>
      serial(async () => {
        const s = span(first, last, spanMs);
        if (!s) return null;
        await refresh(s[0], s[1], false);
        // Per key, per location index: [first minute, last minute, minutes].
        const acc = new Map<number, Map<number, [number, number, number]>>();
        for (let m = s[0]; m <= s[1]; m += MINUTE) {
          const x = minutes.get(m)!;
          for (let i = 0; i < x.keyIds.length; i++) {
            let inner = acc.get(x.keyIds[i]!);
            if (!inner) acc.set(x.keyIds[i]!, (inner = new Map()));
            const a = inner.get(x.locations[i]!);
            if (a) {
              a[1] = m;
              a[2]++;
            } else inner.set(x.locations[i]!, [m, m, 1]);
          }
        }
        const out: ProbeActivity[] = [];
        for (const keyId of [...acc.keys()].sort((a, b) => a - b)) {
          const inner = [...acc.get(keyId)!].map(([l, a]) => [names[l]!, a] as const).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
          for (const [location, [firstMinute, lastMinute, n]] of inner) out.push({ keyId, location, firstMinute, lastMinute, minutes: n });
        }
        return out;
      }),
    size() {
      let rows = 0;
      let bytes = 0;
      for (const x of minutes.values()) {
        rows += x.keyIds.length;
        bytes += x.keyIds.byteLength + x.locations.byteLength + (x.probes?.byteLength ?? 0) + (x.ok?.byteLength ?? 0);
      }
      return { minutes: minutes.size, rows, bytes };
    },
  };
}

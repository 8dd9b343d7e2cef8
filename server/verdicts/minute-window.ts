import type { ChangeFeed } from '../storage/change-feed.ts';
import type { KeyLocationSums, KeyServiceSums, KeySourceMinutes, ProbeMinute, RecentProbes, RollupsPart } from '../storage/storage.ts';
import { addInto } from './counters.ts';
import { floorMinute } from './window.ts';

const MINUTE = 60_000;

/** What a short window's client and probe reads return, summed over its minutes. */
export interface MinuteReads {
  byService: KeyServiceSums;
  reporting: KeySourceMinutes;
  probeSums: KeyLocationSums;
  recent: RecentProbes;
}

/** One minute's rows, as the rollup reads return them for that minute alone. */
interface Minute {
  keys: KeyServiceSums;
  sources: KeySourceMinutes;
  probes: { sums: KeyLocationSums; recent: RecentProbes };
}

/** The per-minute rollup rows of the last few minutes, kept in memory (docs/verdict-engine.md). */
export interface MinuteWindow {
  /**
   * The client sums, reporting minutes, probe sums and per-minute probe counts of every key
   * over `[first, end)`, equal to the rollup reads of that span; null when the span is longer
   * than the minutes kept (the caller reads the storage).
   */
  read(first: number, end: number): Promise<MinuteReads | null>;
  /** Minutes and rows kept (rows: key × service, key × source, key × location per minute). */
  size(): { minutes: number; rows: number };
}

const byNumber = (a: number, b: number) => a - b;
// The rollup reads order text groups (probe locations) as bytes: locations are ASCII.
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sums nested per-minute maps into one, inner and outer keys in the reads' order. */
function sumNested<K2 extends number | string>(maps: Map<number, Map<K2, Float64Array>>[], inner: (a: K2, b: K2) => number): Map<number, Map<K2, Float64Array>> {
  const ids = new Set<number>();
  for (const m of maps) for (const id of m.keys()) ids.add(id);
  const out = new Map<number, Map<K2, Float64Array>>();
  for (const id of [...ids].sort(byNumber)) {
    const acc = new Map<K2, Float64Array>();
    for (const m of maps) {
      for (const [k, sums] of m.get(id) ?? []) {
        const a = acc.get(k);
        if (a) addInto(a, sums);
        else acc.set(k, Float64Array.from(sums));
      }
    }
    out.set(id, new Map([...acc].sort(([a], [b]) => inner(a, b))));
  }
  return out;
}

/**
 * Keeps the per-minute key, source and probe rollup rows of the latest `spanMs` and answers a
 * span inside it from memory. Each read asks the feed for the earliest minute written since
 * the previous read (late data included) and reads again only the minutes from there on, and
 * the minutes not kept yet, one minute at a time; pruning of per-minute rows drops everything.
 * Only the writes the feed sees are seen: give it a feed only where it sees every write (SQLite).
 */
export function createMinuteWindow(reader: Pick<RollupsPart, 'keyServiceSums' | 'keySources' | 'probesBoth'>, feed: ChangeFeed, spanMs: number): MinuteWindow {
  const minutes = new Map<number, Minute>();
  let cursor = feed.cursor();
  let queue: Promise<unknown> = Promise.resolve();

  async function refresh(first: number, last: number) {
    const at = feed.cursor();
    const { minuteFrom } = feed.since(cursor);
    for (const m of minutes.keys()) if (m >= minuteFrom || m < last - spanMs) minutes.delete(m);
    // Every read after `at`: a write landing while these run is read again next time.
    cursor = at;
    for (let m = first; m <= last; m += MINUTE) {
      if (minutes.has(m)) continue;
      const [keys, sources, probes] = await Promise.all([reader.keyServiceSums(m, m + MINUTE), reader.keySources(m, m + MINUTE), reader.probesBoth(m, m + MINUTE)]);
      minutes.set(m, { keys, sources, probes });
    }
  }

  async function read(first: number, end: number): Promise<MinuteReads | null> {
    const last = floorMinute(end - 1);
    if (first % MINUTE !== 0 || last - first >= spanMs) return null;
    await refresh(first, last);
    const span: Minute[] = [];
    for (let m = first; m <= last; m += MINUTE) span.push(minutes.get(m)!);
    const reporting: KeySourceMinutes = new Map();
    const reported = new Set<number>();
    for (const x of span) for (const id of x.sources.keys()) reported.add(id);
    for (const id of [...reported].sort(byNumber)) {
      const acc = new Map<number, number>();
      for (const x of span) for (const [source, n] of x.sources.get(id) ?? []) acc.set(source, (acc.get(source) ?? 0) + n);
      reporting.set(id, new Map([...acc].sort(([a], [b]) => a - b)));
    }
    const recent: RecentProbes = new Map();
    // Newest minute first, as the rollup read orders them.
    for (const s of [...span].reverse()) {
      for (const [id, byLocation] of s.probes.recent) {
        let inner = recent.get(id);
        if (!inner) recent.set(id, (inner = new Map()));
        for (const [location, list] of byLocation) inner.set(location, [...(inner.get(location) ?? []), ...list.map((x): ProbeMinute => ({ ...x }))]);
      }
    }
    const ordered: RecentProbes = new Map([...recent].sort(([a], [b]) => a - b).map(([id, inner]) => [id, new Map([...inner].sort(([a], [b]) => byText(a, b)))]));
    return {
      byService: sumNested(span.map((s) => s.keys), byNumber),
      reporting,
      probeSums: sumNested(span.map((s) => s.probes.sums), byText),
      recent: ordered,
    };
  }

  return {
    read(first, end) {
      // One read at a time: each refresh moves the cursor the next one starts from.
      const p = queue.then(() => read(first, end));
      queue = p.catch(() => undefined);
      return p;
    },
    size() {
      let rows = 0;
      for (const m of minutes.values()) {
        for (const part of [m.keys, m.sources, m.probes.sums]) for (const inner of part.values()) rows += inner.size;
      }
      return { minutes: minutes.size, rows };
    },
  };
}

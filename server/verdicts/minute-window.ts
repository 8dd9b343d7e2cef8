import type { ChangeFeed } from '../storage/change-feed.ts';
import type { KeyLocationSums, KeyServiceSums, KeySourceMinutes, ProbeMinute, RecentProbes, RollupsPart } from '../storage/storage.ts';
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
  /**
   * Key ids with any key, source or probe row in the kept minutes `[first, end)` (minutes
   * left or entered by a sliding window); null when one of those minutes is not kept.
   */
  keysIn(first: number, end: number): Set<number> | null;
  /** Whether `read(first, end)` is answered from memory (the span fits). */
  covers(first: number, end: number): boolean;
  /** Minutes and rows kept (rows: key × service, key × source, key × location per minute). */
  size(): { minutes: number; rows: number };
}

const byNumber = (a: number, b: number) => a - b;
// The rollup reads order text groups (probe locations) as bytes: locations are ASCII.
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Adds `x` into `sum` with Kahan-Babuska-Neumaier compensation in `err`, the steps SQLite's
 * SUM() takes over REAL values: summed in the same order (minutes ascending, as the rollup
 * read scans them), the result `sum + err` is the number SQLite returns, to the last bit.
 */
function addCompensated(sum: Float64Array, err: Float64Array, x: Float64Array): void {
  for (let i = 0; i < sum.length; i++) {
    const s = sum[i]!;
    const r = x[i]!;
    const t = s + r;
    err[i]! += Math.abs(s) > Math.abs(r) ? s - t + r : r - t + s;
    sum[i] = t;
  }
}

/** Sums nested per-minute maps into one, inner and outer keys in the reads' order (sorted once at the end). */
function sumNested<K2 extends number | string>(maps: Map<number, Map<K2, Float64Array>>[], inner: (a: K2, b: K2) => number): Map<number, Map<K2, Float64Array>> {
  const acc = new Map<number, Map<K2, [Float64Array, Float64Array]>>();
  for (const m of maps) {
    for (const [id, byInner] of m) {
      let into = acc.get(id);
      if (!into) acc.set(id, (into = new Map()));
      for (const [k, sums] of byInner) {
        const a = into.get(k);
        if (a) addCompensated(a[0], a[1], sums);
        else into.set(k, [Float64Array.from(sums), new Float64Array(sums.length)]);
      }
    }
  }
  const out = new Map<number, Map<K2, Float64Array>>();
  for (const [id, into] of acc) {
    const done = new Map<K2, Float64Array>();
    for (const [k, [sum, err]] of into) {
      for (let i = 0; i < sum.length; i++) sum[i]! += err[i]!;
      done.set(k, sum);
    }
    out.set(id, done);
  }
  return sortedNested(out, inner);
}

/** The map with outer keys in number order and inner keys in `inner` order (inner maps of one entry as they are). */
function sortedNested<K2, V>(acc: Map<number, Map<K2, V>>, inner: (a: K2, b: K2) => number): Map<number, Map<K2, V>> {
  const out = new Map<number, Map<K2, V>>();
  for (const id of [...acc.keys()].sort(byNumber)) {
    const m = acc.get(id)!;
    out.set(id, m.size > 1 ? new Map([...m].sort(([a], [b]) => inner(a, b))) : m);
  }
  return out;
}

/**
 * Keeps the per-minute key, source and probe rollup rows of the latest `spanMs` and answers a
 * span inside it from memory. Each read asks the feed for the earliest minute written since
 * the previous read (late data included) and reads again only the minutes from there on, and
 * the minutes not kept yet, one minute at a time; pruning of per-minute rows drops everything.
 * Only the writes the feed sees are seen, and float sums are SQLite's: SQLite only.
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

  const covers = (first: number, end: number) => first % MINUTE === 0 && floorMinute(end - 1) - first < spanMs;

  async function read(first: number, end: number): Promise<MinuteReads | null> {
    const last = floorMinute(end - 1);
    if (!covers(first, end)) return null;
    await refresh(first, last);
    const span: Minute[] = [];
    for (let m = first; m <= last; m += MINUTE) span.push(minutes.get(m)!);
    const reporting = new Map<number, Map<number, number>>();
    for (const x of span) {
      for (const [id, bySource] of x.sources) {
        let into = reporting.get(id);
        if (!into) reporting.set(id, (into = new Map()));
        for (const [source, n] of bySource) into.set(source, (into.get(source) ?? 0) + n);
      }
    }
    const recent = new Map<number, Map<string, ProbeMinute[]>>();
    // Newest minute first, as the rollup read orders them; fresh lists (callers sort merged ones).
    for (let i = span.length - 1; i >= 0; i--) {
      for (const [id, byLocation] of span[i]!.probes.recent) {
        let into = recent.get(id);
        if (!into) recent.set(id, (into = new Map()));
        for (const [location, list] of byLocation) {
          const to = into.get(location);
          if (to) to.push(...list);
          else into.set(location, [...list]);
        }
      }
    }
    return {
      byService: sumNested(span.map((s) => s.keys), byNumber),
      reporting: sortedNested(reporting, byNumber),
      probeSums: sumNested(span.map((s) => s.probes.sums), byText),
      recent: sortedNested(recent, byText),
    };
  }

  return {
    read(first, end) {
      // One read at a time: each refresh moves the cursor the next one starts from.
      const p = queue.then(() => read(first, end));
      queue = p.catch(() => undefined);
      return p;
    },
    covers,
    keysIn(first, end) {
      const out = new Set<number>();
      for (let m = first; m < end; m += MINUTE) {
        const x = minutes.get(m);
        if (!x) return null;
        for (const part of [x.keys, x.sources, x.probes.sums]) for (const id of part.keys()) out.add(id);
      }
      return out;
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

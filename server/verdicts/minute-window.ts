import type { ChangeFeed } from '../storage/change-feed.ts';
import type { KeyLocationSums, KeyServiceSums, KeySourceMinutes, ProbeMinute, RecentProbes, RollupsPart } from '../storage/storage.ts';
import { floorMinute } from './window.ts';
import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import { P } from './counters.ts';
import { addReporting, finishFold, finishRecent, finishReporting, foldPacked, type FoldState, type Packed, type RecentRows } from './minute-prefix.ts';

const MINUTE = 60_000;
const packedNone = <K2>(width: number): Packed<K2> => ({ ids: new Int32Array(0), inner: [], at: new Int32Array(1), cols: new Uint8Array(0), vals: new Float64Array(0), width });
/** A minute without rows. */
const EMPTY = { keys: packedNone<number>(KEY_COLUMNS.length), sources: new Int32Array(0), probes: packedNone<string>(PROBE_COLUMNS.length) };
/** Kept folds of a span's older minutes, one per first minute (server/verdicts/minute-prefix.ts). */
const MAX_PREFIXES = 4;

/** What a short window's client and probe reads return, summed over its minutes. */
export interface MinuteReads {
  byService: KeyServiceSums;
  reporting: KeySourceMinutes;
  probeSums: KeyLocationSums;
  recent: RecentProbes;
}

/** One minute's key, source and probe rows, as the rollup reads return them for that minute alone. */
interface Minute {
  keys: Packed<number>;
  /** key id, source id, and reported minutes (1) per row. */
  sources: Int32Array;
  probes: Packed<string>;
}

function pack<K2>(m: Map<number, Map<K2, Float64Array>>, width: number): Packed<K2> {
  let rows = 0;
  let nonzero = 0;
  for (const inner of m.values()) for (const v of inner.values()) {
    rows++;
    for (let c = 0; c < width; c++) if (v[c] !== 0) nonzero++;
  }
  const out: Packed<K2> = { ids: new Int32Array(rows), inner: [], at: new Int32Array(rows + 1), cols: new Uint8Array(nonzero), vals: new Float64Array(nonzero), width };
  let i = 0;
  let j = 0;
  for (const [id, inner] of m) {
    for (const [k, v] of inner) {
      out.ids[i] = id;
      out.inner.push(k);
      for (let c = 0; c < width; c++) if (v[c] !== 0) {
        out.cols[j] = c;
        out.vals[j++] = v[c]!;
      }
      out.at[++i] = j;
    }
  }
  return out;
}

/** The value of column `c` of packed row `i`. */
function valueOf(p: Packed<unknown>, i: number, c: number): number {
  for (let j = p.at[i]!; j < p.at[i + 1]!; j++) if (p.cols[j] === c) return p.vals[j]!;
  return 0;
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
      const rows: number[] = [];
      for (const [id, bySource] of sources) for (const [source, n] of bySource) rows.push(id, source, n);
      // The per-minute probe counts are the minute's own row (probes, slow + error, misconfigured): kept once, in the sums.
      minutes.set(m, { keys: pack(keys, KEY_COLUMNS.length), sources: Int32Array.from(rows), probes: pack(probes.sums, PROBE_COLUMNS.length) });
    }
  }

  const covers = (first: number, end: number) => first % MINUTE === 0 && floorMinute(end - 1) - first < spanMs;

  /** Per key and location, the probe rows of `span` (minutes ascending, the newest `last`) newest first. */
  const recentOf = (span: Minute[], last: number): RecentRows => {
    const recent: RecentRows = new Map();
    // Newest minute first, as the rollup read orders them.
    for (let n = span.length - 1; n >= 0; n--) {
      const p = span[n]!.probes;
      const minute = last - (span.length - 1 - n) * MINUTE;
      for (let i = 0; i < p.ids.length; i++) {
        const id = p.ids[i]!;
        let into = recent.get(id);
        if (!into) recent.set(id, (into = new Map()));
        const row: ProbeMinute = { minute, probes: valueOf(p, i, P.probes), failed: valueOf(p, i, P.slow) + valueOf(p, i, P.error), misconfigured: valueOf(p, i, P.misconfigured) };
        const list = into.get(p.inner[i]!);
        if (list) list.push(row);
        else into.set(p.inner[i]!, [row]);
      }
    }
    return recent;
  };

  /**
   * The fold of a span's minutes but its newest, kept per first minute: a pass inside the same
   * minute as the previous one (a live fleet writes only the newest minute) folds that one
   * minute onto it. Valid while its minutes are the very ones kept (a minute read again is a
   * new object).
   */
  interface Prefix {
    parts: Minute[];
    keys: FoldState<number>;
    probes: FoldState<string>;
    reporting: Map<number, Map<number, number>>;
    recent: RecentRows;
  }
  const prefixes = new Map<number, Prefix>();
  const prefixOf = (first: number, head: Minute[]): Prefix => {
    const kept = prefixes.get(first);
    if (kept && kept.parts.length === head.length && kept.parts.every((x, i) => x === head[i])) return kept;
    const p: Prefix = {
      parts: head,
      keys: foldPacked(new Map(), head.map((x) => x.keys), KEY_COLUMNS.length),
      probes: foldPacked(new Map(), head.map((x) => x.probes), PROBE_COLUMNS.length),
      reporting: addReporting(new Map(), head.map((x) => x.sources)),
      recent: recentOf(head, first + (head.length - 1) * MINUTE),
    };
    prefixes.delete(first);
    prefixes.set(first, p);
    // A few windows at once (15 m and 5 m); the oldest first minutes go first.
    while (prefixes.size > MAX_PREFIXES) prefixes.delete(prefixes.keys().next().value!);
    return p;
  };

  async function read(first: number, end: number): Promise<MinuteReads | null> {
    const last = floorMinute(end - 1);
    if (!covers(first, end)) return null;
    await refresh(first, last);
    const span: Minute[] = [];
    for (let m = first; m <= last; m += MINUTE) span.push(minutes.get(m)!);
    const p = prefixOf(first, span.slice(0, -1));
    // An empty window (`end` at `first`) reads no minute.
    const newest = span.at(-1) ?? EMPTY;
    return {
      byService: sortedNested(finishFold(p.keys, newest.keys, KEY_COLUMNS.length), byNumber),
      reporting: sortedNested(finishReporting(p.reporting, [newest.sources]), byNumber),
      probeSums: sortedNested(finishFold(p.probes, newest.probes, PROBE_COLUMNS.length), byText),
      recent: sortedNested(finishRecent(p.recent, recentOf(span.slice(-1), last)), byText),
    };
  }

  return {
    read(first, end) {
      // One read at a time: each refresh moves the cursor the next one starts from.
      const p = queue.then(() => read(first, end));
      queue = p.then(() => undefined, () => undefined); // not its result: the queue keeps no answer alive
      return p;
    },
    covers,
    keysIn(first, end) {
      const out = new Set<number>();
      for (let m = first; m < end; m += MINUTE) {
        const x = minutes.get(m);
        if (!x) return null;
        for (const ids of [x.keys.ids, x.probes.ids]) for (const id of ids) out.add(id);
        for (let i = 0; i < x.sources.length; i += 3) out.add(x.sources[i]!);
      }
      return out;
    },
    size() {
      let rows = 0;
      for (const m of minutes.values()) rows += m.keys.ids.length + m.sources.length / 3 + m.probes.ids.length;
      return { minutes: minutes.size, rows };
    },
  };
}

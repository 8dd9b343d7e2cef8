import type { ProbeMinute } from '../storage/storage.ts';

/**
 * One minute's rows of one rollup table, packed (no object per row): row `i` is
 * (`ids[i]`, `inner[i]`) and its nonzero columns `cols[at[i]..at[i+1])` with values `vals[…]`.
 * Most histogram buckets of a minute are zero, and adding a zero changes no sum.
 */
export interface Packed<K2> {
  ids: Int32Array;
  inner: K2[];
  at: Int32Array;
  cols: Uint8Array;
  vals: Float64Array;
  width: number;
}

/** A compensated fold in progress: per id and inner key, each column's running sum and its error term. */
export type FoldState<K2> = Map<number, Map<K2, [Float64Array, Float64Array]>>;

/**
 * Adds `parts` (minutes ascending) into `acc`, each column with Kahan-Babuska-Neumaier
 * compensation: the steps SQLite's SUM() takes over REAL values, in the same order (minutes
 * ascending, as SQLite scans them). The fold is a left fold: a state kept after some minutes
 * and continued with the next ones ends where one fold over all of them ends, to the last bit.
 */
export function foldPacked<K2>(acc: FoldState<K2>, parts: Packed<K2>[], width: number, base?: FoldState<K2>): FoldState<K2> {
  for (const p of parts) {
    for (let i = 0; i < p.ids.length; i++) {
      const id = p.ids[i]!;
      let into = acc.get(id);
      if (!into) acc.set(id, (into = new Map()));
      let a = into.get(p.inner[i]!);
      if (!a) {
        // Continuing a kept state: copied on first touch, the kept one stays as it was.
        const from = base?.get(id)?.get(p.inner[i]!);
        into.set(p.inner[i]!, (a = from ? [from[0].slice(), from[1].slice()] : [new Float64Array(width), new Float64Array(width)]));
      }
      const [sum, err] = a;
      for (let j = p.at[i]!; j < p.at[i + 1]!; j++) {
        const c = p.cols[j]!;
        const s = sum[c]!;
        const r = p.vals[j]!;
        const t = s + r;
        err[c]! += Math.abs(s) > Math.abs(r) ? s - t + r : r - t + s;
        sum[c] = t;
      }
    }
  }
  return acc;
}

/**
 * The sums (`sum + err`, the number SQLite returns) of a kept fold `prefix` continued with
 * `minute` (the one minute after it: each id and inner key at most once), as nested maps in no
 * particular order (the caller sorts); `prefix` is left as it was. One new array per row.
 */
export function finishFold<K2>(prefix: FoldState<K2>, minute: Packed<K2>, width: number): Map<number, Map<K2, Float64Array>> {
  const out = new Map<number, Map<K2, Float64Array>>();
  for (const [id, inner] of prefix) {
    const done = new Map<K2, Float64Array>();
    for (const [k, [sum, err]] of inner) {
      const v = new Float64Array(width);
      for (let c = 0; c < width; c++) v[c] = sum[c]! + err[c]!;
      done.set(k, v);
    }
    out.set(id, done);
  }
  const p = minute;
  const zero = new Float64Array(width);
  for (let i = 0; i < p.ids.length; i++) {
    const id = p.ids[i]!;
    const k = p.inner[i]!;
    const kept = prefix.get(id)?.get(k);
    // The kept running sum and error, continued with this row's columns (unchanged columns keep sum + err as above).
    const [sum, err] = kept ?? [zero, zero];
    let done = out.get(id);
    if (!done) out.set(id, (done = new Map()));
    const v = done.get(k) ?? new Float64Array(width);
    for (let j = p.at[i]!; j < p.at[i + 1]!; j++) {
      const c = p.cols[j]!;
      const s = sum[c]!;
      const r = p.vals[j]!;
      const t = s + r;
      v[c] = t + (err[c]! + (Math.abs(s) > Math.abs(r) ? s - t + r : r - t + s));
    }
    done.set(k, v);
  }
  return out;
}

/** Reported minutes per key and source over `parts` (rows of key id, source id, minutes), added into `acc`. */
export function addReporting(acc: Map<number, Map<number, number>>, parts: Int32Array[]): Map<number, Map<number, number>> {
  for (const x of parts) {
    for (let i = 0; i < x.length; i += 3) {
      const id = x[i]!;
      let into = acc.get(id);
      if (!into) acc.set(id, (into = new Map()));
      into.set(x[i + 1]!, (into.get(x[i + 1]!) ?? 0) + x[i + 2]!);
    }
  }
  return acc;
}

/** A copy of kept reporting minutes (inner maps copied: the caller may keep them), with `tail` added. */
export function finishReporting(prefix: Map<number, Map<number, number>>, tail: Int32Array[]): Map<number, Map<number, number>> {
  const out = new Map<number, Map<number, number>>();
  for (const [id, inner] of prefix) out.set(id, new Map(inner));
  return addReporting(out, tail);
}

/** Per key and location, the minutes' probe rows newest first. */
export type RecentRows = Map<number, Map<string, ProbeMinute[]>>;

/** Kept recent probe rows `prefix` (older minutes) behind `newer` (the minutes after them, newest first): new lists, the rows shared. */
export function finishRecent(prefix: RecentRows, newer: RecentRows): RecentRows {
  const out: RecentRows = new Map();
  for (const [id, inner] of prefix) {
    const n = newer.get(id);
    const done = new Map<string, ProbeMinute[]>();
    for (const [location, list] of inner) {
      const head = n?.get(location);
      done.set(location, head ? head.concat(list) : list.slice());
    }
    out.set(id, done);
  }
  for (const [id, inner] of newer) {
    let done = out.get(id);
    if (!done) out.set(id, (done = new Map()));
    for (const [location, list] of inner) if (!done.has(location)) done.set(location, list);
  }
  return out;
}

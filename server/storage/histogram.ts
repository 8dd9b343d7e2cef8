import { DEFAULT_LATENCY_BOUNDS_MS, ROLLUP_BUCKETS, type Histogram } from '@breakerbox/protocol';

/** Rollup histograms use these bounds; bucket i counts values <= bound i, the last bucket the rest. */
export const ROLLUP_BOUNDS: readonly number[] = DEFAULT_LATENCY_BOUNDS_MS;

const mappings = new Map<string, Int8Array>();

// A pure memo (bounds -> mapping): the few bounds seen last (a window's latency and TTFT
// histograms alternate), then every signature seen.
const RECENT = 4;
/** A bounds set seen lately: its rollup mapping, and the start of its stored JSON up to the counts. */
interface KnownBounds {
  bounds: readonly number[];
  mapping: Int8Array;
  jsonHead: string;
}
const recent: KnownBounds[] = [];

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * For each bucket of a histogram with `bounds`, the rollup bucket it lands in: the first
 * rollup bucket whose bound is at or above the incoming bucket's upper bound. Re-bucketing
 * can only move counts up, so merged percentiles err on the slow side, never the fast one.
 */
function mappingFor(bounds: readonly number[]): Int8Array {
  return known(bounds).mapping;
}

function known(bounds: readonly number[]): KnownBounds {
  // Nearly every window of a batch carries the same bounds: compare numbers before building a key string.
  for (const seen of recent) if (sameBounds(bounds, seen.bounds)) return seen;
  const entry: KnownBounds = { bounds: bounds.slice(), mapping: mappingForSignature(bounds), jsonHead: `{"bounds":${JSON.stringify(bounds)},"counts":[` };
  if (recent.length === RECENT) recent.pop();
  recent.unshift(entry);
  return entry;
}

/**
 * A histogram as stored in a raw row: `{"bounds":[…],"counts":[…]}`, the JSON that
 * `JSON.stringify` gives, with the bounds part written once per bounds set (joined finite
 * numbers are their JSON). Two per window: stringifying them was a fifth of a raw insert.
 */
export function histogramJson(h: Histogram): string {
  // Anything else (a count that is not a finite number) goes through JSON.stringify as before.
  for (const c of h.counts) if (typeof c !== 'number' || !Number.isFinite(c)) return JSON.stringify(h);
  return `${known(h.bounds).jsonHead}${h.counts.join(',')}]}`;
}

function mappingForSignature(bounds: readonly number[]): Int8Array {
  const signature = bounds.join(',');
  let mapping = mappings.get(signature);
  if (!mapping) {
    mapping = new Int8Array(bounds.length + 1);
    for (let i = 0; i <= bounds.length; i++) {
      const upper = i < bounds.length ? bounds[i]! : Number.POSITIVE_INFINITY;
      let j = ROLLUP_BOUNDS.findIndex((b) => b >= upper);
      if (j === -1) j = ROLLUP_BOUNDS.length;
      mapping[i] = j;
    }
    // A client sending ever-new bound sets must not grow this cache without limit.
    if (mappings.size > 1000) mappings.clear();
    mappings.set(signature, mapping);
  }
  return mapping;
}

/** Adds `h` (any bounds) into the rollup-bounds counts that start at `into[offset]`. */
export function addHistogram(into: number[], h: Histogram, offset = 0): void {
  const mapping = mappingFor(h.bounds);
  for (let i = 0; i < h.counts.length; i++) into[offset + mapping[i]!]! += h.counts[i]!;
}

/** Adds one observed value into the rollup-bounds counts that start at `into[offset]`. */
export function addValue(into: number[], value: number, offset = 0): void {
  let j = ROLLUP_BOUNDS.findIndex((b) => value <= b);
  if (j === -1) j = ROLLUP_BOUNDS.length;
  into[offset + j]! += 1;
}

/**
 * The q-quantile (0..1) of rollup-bounds counts, interpolated linearly inside the bucket;
 * null when empty. Values above the last bound report the last bound.
 */
export function quantile(counts: readonly number[], q: number): number | null {
  let total = 0;
  for (const c of counts) total += c;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (c > 0 && seen + c >= rank) {
      if (i >= ROLLUP_BOUNDS.length) return ROLLUP_BOUNDS[ROLLUP_BOUNDS.length - 1]!;
      const lower = i === 0 ? 0 : ROLLUP_BOUNDS[i - 1]!;
      const upper = ROLLUP_BOUNDS[i]!;
      return lower + ((rank - seen) / c) * (upper - lower);
    }
    seen += c;
  }
  return ROLLUP_BOUNDS[ROLLUP_BOUNDS.length - 1]!;
}

/** A zeroed rollup-bounds count array. */
export function emptyCounts(): number[] {
  return new Array<number>(ROLLUP_BUCKETS).fill(0);
}

/**
 * Counters over a rolling time window, kept in fixed buckets so recording and reading
 * the totals are O(1) and allocate nothing.
 */

/** Indexes of the counters a breaker keeps. */
export const Counter = { Calls: 0, Errors: 1, Slow: 2, Rejections: 3 } as const;
/** One of the `Counter` indexes. */
export type Counter = (typeof Counter)[keyof typeof Counter];
const COUNTERS = 4;

/** Rolling sums of the breaker's counters over `windowMs`, in `buckets` slices. */
export class RollingWindow {
  private readonly bucketMs: number;
  private readonly n: number;
  // Plain number arrays: at 10k keys, typed arrays' per-object overhead outweighs their speed.
  private readonly cells: number[];
  private readonly totals: number[] = [0, 0, 0, 0];
  private epoch = -1;
  /** Time span of the current bucket; a call inside it skips the division. */
  private bucketStart = 0;
  private bucketEnd = -1;
  private cell = 0;

  constructor(windowMs: number, buckets: number) {
    this.n = Math.max(1, Math.floor(buckets));
    this.bucketMs = Math.max(1, windowMs / this.n);
    this.cells = new Array<number>(this.n * COUNTERS).fill(0);
  }

  /** Adds `by` to counter `c` at time `now`. */
  add(now: number, c: Counter, by = 1): void {
    if (now >= this.bucketEnd || now < this.bucketStart) this.advance(now);
    this.cells[this.cell + c]! += by;
    this.totals[c]! += by;
  }

  /** The sum of counter `c` over the window ending at `now`. */
  total(now: number, c: Counter): number {
    if (now >= this.bucketEnd || now < this.bucketStart) this.advance(now);
    return this.totals[c]!;
  }

  /** Forgets everything. */
  clear(): void {
    this.cells.fill(0);
    this.totals.fill(0);
  }

  private advance(now: number): number {
    const e = Math.floor(now / this.bucketMs);
    if (e === this.epoch) return e;
    if (this.epoch < 0 || e - this.epoch >= this.n || e < this.epoch) {
      this.clear();
    } else {
      for (let x = this.epoch + 1; x <= e; x++) {
        const base = (x % this.n) * COUNTERS;
        for (let c = 0; c < COUNTERS; c++) {
          this.totals[c]! -= this.cells[base + c]!;
          this.cells[base + c] = 0;
        }
      }
    }
    this.epoch = e;
    this.bucketStart = e * this.bucketMs;
    this.bucketEnd = this.bucketStart + this.bucketMs;
    this.cell = (e % this.n) * COUNTERS;
    return e;
  }
}

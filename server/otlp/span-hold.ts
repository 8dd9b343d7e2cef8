/**
 * Span tallies held before they are stored: spans of one service, instance and key are
 * summed over `holdMs` (a few seconds, so span volume does not multiply the write load while
 * the calls stay visible within seconds). Which spans count at all is decided before
 * (`span-handover.ts`). Bounded: past `maxTallies` the oldest tallies are released early.
 * Held tallies live in this collector's memory only; a stop writes them out (`take(all)`),
 * a crash loses at most `holdMs` of span-fed figures.
 */
import { mergeTally, tallyId, type SpanTally } from './spans-to-windows.ts';

/** Options of the hold. */
export interface SpanHoldOptions {
  holdMs: number;
  maxTallies: number;
}

/** The held tallies. */
export class SpanHold {
  private readonly held = new Map<string, { tally: SpanTally; dueAt: number }>();

  constructor(private readonly options: SpanHoldOptions) {}

  /** Tallies held (for tests and /metrics). */
  get size(): number {
    return this.held.size;
  }

  /** Adds a request's tallies; a tally first held now is due at `now + holdMs`. */
  add(tallies: Iterable<SpanTally>, now: number): void {
    for (const t of tallies) {
      const id = tallyId(t.source, t.key);
      const entry = this.held.get(id);
      if (entry) {
        mergeTally(entry.tally, t);
        continue;
      }
      this.held.set(id, { tally: t, dueAt: now + this.options.holdMs });
    }
  }

  /** Removes and returns the tallies due at `now` (all of them with `all`), and the oldest past the cap. */
  take(now: number, all = false): SpanTally[] {
    const out: SpanTally[] = [];
    // Map order is insertion order, and every tally waits the same holdMs: the due ones come first.
    for (const [id, entry] of this.held) {
      if (!all && entry.dueAt > now && this.held.size <= this.options.maxTallies) break;
      this.held.delete(id);
      out.push(entry.tally);
    }
    return out;
  }
}

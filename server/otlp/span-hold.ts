/**
 * Span tallies held before they are stored: spans of one service, instance and key are
 * summed over `holdMs` (so span volume does not multiply the write load), and a tally is
 * dropped when the same service reports the key as GenAI metrics meanwhile — metrics win
 * (docs/otlp.md, "Spans and metrics from one service"). Bounded: past `maxTallies` the
 * oldest tallies are released early. Held tallies live in this collector's memory only;
 * a stop writes them out (`take(all)`), a crash loses at most `holdMs` of span-fed figures.
 */
import { keyId } from '@breakerbox/protocol';
import { mergeTally, tallyId, type SpanTally } from './spans-to-windows.ts';

/** Options of the hold. */
export interface SpanHoldOptions {
  holdMs: number;
  maxTallies: number;
  /** How long metrics of a service and key keep its spans from being counted. */
  coverMs: number;
  maxCovered: number;
}

const serviceKey = (service: string, kid: string) => `${service}\u0000${kid}`;

/** The held tallies and the (service, key) pairs recently reported as metrics. */
export class SpanHold {
  private readonly held = new Map<string, { tally: SpanTally; dueAt: number }>();
  /** Tally ids per service and key, so metrics drop them without a scan. */
  private readonly byServiceKey = new Map<string, Set<string>>();
  /** Service and key → when metrics last reported it. Map order: least recently reported first. */
  private readonly covered = new Map<string, number>();

  constructor(private readonly options: SpanHoldOptions) {}

  /** Tallies held (for tests and /metrics). */
  get size(): number {
    return this.held.size;
  }

  /** True when metrics reported this service and key within `coverMs`: its spans are not counted. */
  covers(service: string, kid: string, now: number): boolean {
    const at = this.covered.get(serviceKey(service, kid));
    return at !== undefined && now - at <= this.options.coverMs;
  }

  /** Metrics of a service and key were stored: its held spans are dropped; returns how many spans. */
  metricsSeen(service: string, kid: string, now: number): number {
    const sk = serviceKey(service, kid);
    this.covered.delete(sk);
    this.covered.set(sk, now);
    while (this.covered.size > this.options.maxCovered) this.covered.delete(this.covered.keys().next().value as string);
    const ids = this.byServiceKey.get(sk);
    if (!ids) return 0;
    let spans = 0;
    for (const id of ids) {
      spans += this.held.get(id)?.tally.spans ?? 0;
      this.held.delete(id);
    }
    this.byServiceKey.delete(sk);
    return spans;
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
      const sk = serviceKey(t.source.service, keyId(t.key));
      let ids = this.byServiceKey.get(sk);
      if (!ids) this.byServiceKey.set(sk, (ids = new Set()));
      ids.add(id);
    }
  }

  /** Removes and returns the tallies due at `now` (all of them with `all`), and the oldest past the cap. */
  take(now: number, all = false): SpanTally[] {
    const out: SpanTally[] = [];
    // Map order is insertion order, and every tally waits the same holdMs: the due ones come first.
    for (const [id, entry] of this.held) {
      if (!all && entry.dueAt > now && this.held.size <= this.options.maxTallies) break;
      this.held.delete(id);
      const sk = serviceKey(entry.tally.source.service, keyId(entry.tally.key));
      const ids = this.byServiceKey.get(sk);
      ids?.delete(id);
      if (ids?.size === 0) this.byServiceKey.delete(sk);
      out.push(entry.tally);
    }
    return out;
  }
}

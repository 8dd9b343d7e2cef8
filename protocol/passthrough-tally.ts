/**
 * Counts of requests forwarded unprotected, per host, path family and method, bounded: past
 * `maxEntries` distinct entries, the rest is folded into one `(other)` entry, so the map never
 * grows with what the application sends. The SDK counts into one; the telemetry sender takes
 * its entries into the next batch (`passthrough`, docs/protocol.md).
 */
import type { PassthroughCount } from './types.ts';
import { MAX_PASSTHROUGH_ENTRIES } from './schemas.ts';

/** Host, path family and method of the entry that holds what did not fit under the cap. */
export const PASSTHROUGH_OTHER = '(other)';

/** What the telemetry sender needs of a tally. */
export interface PassthroughSource {
  /** Distinct entries held. */
  readonly size: number;
  /** The entries counted so far; the tally is empty afterwards. */
  take(): PassthroughCount[];
}

/** A bounded tally of passthrough requests (see the module comment). */
export class PassthroughTally implements PassthroughSource {
  private readonly entries = new Map<string, PassthroughCount>();
  /** Entries kept distinct; one more holds the overflow. */
  private readonly cap: number;

  constructor(maxEntries = MAX_PASSTHROUGH_ENTRIES) {
    this.cap = Math.max(0, Math.min(maxEntries, MAX_PASSTHROUGH_ENTRIES) - 1);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Counts `count` requests (default one). Never throws. */
  add(host: string, pathFamily: string, method: string, why?: string, count = 1): void {
    // Cut to the schema's lengths here, so a batch carrying them is never refused for them.
    host = cut(host, 255) || '(none)';
    pathFamily = cut(pathFamily, 200) || '/';
    method = cut(method, 16) || '(none)';
    if (why !== undefined) why = cut(why, 100) || undefined;
    const id = `${host}\u0000${pathFamily}\u0000${method}`;
    let e = this.entries.get(id);
    if (e === undefined && this.entries.size >= this.cap) {
      const other = `${PASSTHROUGH_OTHER}\u0000${PASSTHROUGH_OTHER}\u0000${PASSTHROUGH_OTHER}`;
      e = this.entries.get(other);
      if (e === undefined) {
        e = { host: PASSTHROUGH_OTHER, path_family: PASSTHROUGH_OTHER, method: PASSTHROUGH_OTHER, count: 0 };
        this.entries.set(other, e);
      }
      e.count += count;
      return;
    }
    if (e === undefined) {
      e = { host, path_family: pathFamily, method, count: 0 };
      this.entries.set(id, e);
    }
    e.count += count;
    if (why !== undefined) e.why = why;
  }

  take(): PassthroughCount[] {
    const out = [...this.entries.values()];
    this.entries.clear();
    return out;
  }
}

function cut(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

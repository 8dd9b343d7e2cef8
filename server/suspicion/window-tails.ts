/**
 * The trigger's memory of recent client windows, per instance (key × source): the end of
 * its latest window that was not failing, and its failing windows after that one — the run
 * `failingWindows` (detect.ts) judges. Fed incrementally (each stored window is read once,
 * where the storage can say what is new) or rebuilt from a complete read, and pruned to
 * the lookback, so its size follows the instances reporting now, not the ingest rate.
 */
import { PROVIDER_CLASSES } from '@breakerbox/protocol';
import type { RecentWindow } from '../storage/storage.ts';

/** One instance's failing windows after its latest healthy one, in end order. */
export interface WindowRun {
  keyId: number;
  /** Failing windows, oldest end first. */
  windows: RecentWindow[];
}

interface Tail {
  keyId: number;
  /** End of the latest window that was not failing (−∞: none in the lookback). */
  lastOkEnd: number;
  /** Failing windows ending after `lastOkEnd`, by end (a resent window replaces its twin). */
  failing: Map<number, RecentWindow>;
}

const providerFailed = (w: RecentWindow) => PROVIDER_CLASSES.reduce((n, c) => n + (w.errors[c] ?? 0), 0);

/** Per-instance runs of failing windows, within the trigger's lookback. */
export class WindowTails {
  private readonly tails = new Map<string, Tail>();

  /** `share`: provider-side failed calls over calls at or above which a window is failing. */
  constructor(private readonly share: number) {}

  /** Whether a window counts as failing (a window without calls never does). */
  failing(w: RecentWindow): boolean {
    return w.calls > 0 && providerFailed(w) / w.calls >= this.share;
  }

  /** Forgets everything (before a complete read replaces it). */
  clear(): void {
    this.tails.clear();
  }

  /** Takes in one window, in any order of arrival. */
  add(w: RecentWindow): void {
    const id = `${w.keyId}:${w.sourceId}`;
    let tail = this.tails.get(id);
    const failing = this.failing(w);
    if (!tail) {
      // An instance with only healthy windows needs no more than where its last one ended.
      tail = { keyId: w.keyId, lastOkEnd: -Infinity, failing: new Map() };
      this.tails.set(id, tail);
    }
    if (failing) {
      if (w.end > tail.lastOkEnd) tail.failing.set(w.end, w);
      return;
    }
    if (w.end <= tail.lastOkEnd) return;
    tail.lastOkEnd = w.end;
    for (const end of tail.failing.keys()) if (end <= w.end) tail.failing.delete(end);
  }

  /** Drops what ended before `since`; an instance left with nothing is forgotten. */
  prune(since: number): void {
    for (const [id, tail] of this.tails) {
      for (const end of tail.failing.keys()) if (end < since) tail.failing.delete(end);
      if (tail.lastOkEnd < since) {
        tail.lastOkEnd = -Infinity;
        if (tail.failing.size === 0) this.tails.delete(id);
      }
    }
  }

  /** Each instance's current run of failing windows (instances without one are left out). */
  *runs(): IterableIterator<WindowRun> {
    for (const tail of this.tails.values()) {
      if (tail.failing.size === 0) continue;
      yield { keyId: tail.keyId, windows: [...tail.failing.values()].sort((a, b) => a.end - b.end) };
    }
  }

  /** Instances held. */
  get size(): number {
    return this.tails.size;
  }
}

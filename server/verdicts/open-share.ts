import type { BreakerStateName } from '@breakerbox/protocol';
import type { EventsPart, KeyScope, KeySourceMinutes } from '../storage/storage.ts';

const MINUTE = 60_000;

/** Open and instance time of one key (or one key × instance) over a window. */
export interface OpenTime {
  openMs: number;
  instanceMs: number;
}

/** A breaker's state at the end of the window and since when (null: before any record). */
export interface InstanceState {
  state: BreakerStateName;
  since: number;
}

/** Open time per key and per key × source, and each instance's state at the window's end. */
export interface OpenShareResult {
  perKey: Map<number, OpenTime & { perSource: Map<number, OpenTime> }>;
  states: Map<number, Map<number, InstanceState>>;
  /** Transitions into open per key × source inside the window. */
  opens: Map<number, Map<number, number>>;
  /** Open intervals per key: [source, start, end], clipped to the window. */
  intervals: Map<number, [number, number, number][]>;
}

/** Counts a state as open for the open share: refusing calls, fully or partly. */
export const isOpenState = (s: BreakerStateName | null | undefined): boolean => s === 'open' || s === 'half_open' || s === 'forced_open';

/** Reads breaker transitions (rare, raw) to compute open share and current states. */
export interface OpenShareReader {
  /** Every key, one (`keyId` a number) or those of a list, each in one read of the transitions. */
  compute(from: number, to: number, sources: KeySourceMinutes, keyId?: KeyScope): Promise<OpenShareResult>;
}

/**
 * Open share = instance-time open or half-open ÷ instance-time of the instances reporting
 * the key. An instance's time is the minutes it reported the key (an open breaker keeps
 * reporting: its refused calls are counted as short-circuited), and never less than its
 * open time. An instance that stops reporting the key while open counts as open for
 * `idleAfterMs` (default 5 min) after its last report, then no longer.
 */
export function createOpenShareReader(events: Pick<EventsPart, 'stateBefore' | 'transitionsIn' | 'lastReportMinute'>, options: { idleAfterMs?: number } = {}): OpenShareReader {
  const idleAfterMs = options.idleAfterMs ?? 300_000;

  return {
    async compute(from, to, sources, keyId) {
      const [before, within] = await Promise.all([events.stateBefore(from, keyId), events.transitionsIn(from, to, keyId)]);

      const pairs = new Map<string, { key: number; source: number; start: InstanceState | null; moves: [number, BreakerStateName][] }>();
      const pair = (key: number, source: number) => {
        const id = `${key}:${source}`;
        let entry = pairs.get(id);
        if (!entry) pairs.set(id, (entry = { key, source, start: null, moves: [] }));
        return entry;
      };
      for (const t of before) pair(t.keyId, t.sourceId).start = { state: t.toState, since: t.ts };
      for (const t of within) pair(t.keyId, t.sourceId).moves.push([t.ts, t.toState]);

      const result: OpenShareResult = { perKey: new Map(), states: new Map(), opens: new Map(), intervals: new Map() };
      const keyEntry = (key: number) => {
        let entry = result.perKey.get(key);
        if (!entry) result.perKey.set(key, (entry = { openMs: 0, instanceMs: 0, perSource: new Map() }));
        return entry;
      };

      for (const { key, source, start, moves } of pairs.values()) {
        let state = start?.state ?? null;
        let since = start?.since ?? from;
        let t = from;
        let openMs = 0;
        let opens = 0;
        // An open breaker that is still called reports its refused calls every interval. One
        // that stopped reporting is idle (nobody calls the model) or its instance is gone:
        // its open time ends `idleAfterMs` after its last report, or an alert on it would
        // never resolve.
        let idleFrom = Number.POSITIVE_INFINITY;
        if (isOpenState(start?.state) || moves.some(([, next]) => isOpenState(next))) {
          // Last minute the instance reported the key (windows or transitions) before the window's end.
          const last = await events.lastReportMinute(key, source, to);
          idleFrom = (last === null ? (start?.since ?? from) : last + MINUTE) + idleAfterMs;
        }
        const close = (end: number) => {
          const stop = Math.min(end, idleFrom);
          if (!isOpenState(state) || stop <= t) return;
          openMs += stop - t;
          let list = result.intervals.get(key);
          if (!list) result.intervals.set(key, (list = []));
          list.push([source, t, stop]);
        };
        for (const [ts, next] of moves) {
          close(ts);
          if (next === 'open' || next === 'forced_open') opens++;
          state = next;
          since = ts;
          t = ts;
        }
        close(to);
        if (state !== null) {
          let states = result.states.get(key);
          if (!states) result.states.set(key, (states = new Map()));
          states.set(source, { state, since });
        }
        if (opens > 0) {
          let perSource = result.opens.get(key);
          if (!perSource) result.opens.set(key, (perSource = new Map()));
          perSource.set(source, opens);
        }
        if (openMs > 0) {
          const reportedMs = (sources.get(key)?.get(source) ?? 0) * MINUTE;
          const entry = keyEntry(key);
          const time = { openMs, instanceMs: Math.max(openMs, reportedMs) };
          entry.perSource.set(source, time);
          entry.openMs += time.openMs;
        }
      }
      // Denominators: every reporting instance, plus open time outside reported minutes.
      for (const [key, bySource] of sources) {
        const entry = result.perKey.get(key);
        if (!entry) continue;
        for (const [source, minutes] of bySource) {
          if (!entry.perSource.has(source)) entry.perSource.set(source, { openMs: 0, instanceMs: minutes * MINUTE });
        }
      }
      for (const entry of result.perKey.values()) {
        for (const time of entry.perSource.values()) entry.instanceMs += time.instanceMs;
      }
      return result;
    },
  };
}

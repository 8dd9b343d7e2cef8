/**
 * What a call carries when it is drill traffic (its chain starts at a drilled key while a
 * drill runs, docs/drills.md): where its attempts and its task are counted — the drill's
 * own stats, sent in batches of their own with `drill_id` — and which fault, if any, the
 * fetch layer injects into an attempt on a given key.
 */
import type { BreakerKey, DrillKind } from '@breakerbox/protocol';
import type { KeyStats } from '../telemetry/key-stats.ts';
import type { TaskStats } from '../telemetry/task-stats.ts';

/** One drill run as a call sees it. */
export interface DrillTraffic {
  /** The drill's id (`drill_id` of its batches). */
  readonly id: string;
  /** The drill's window counters for `key` (created on first use; bounded by the keys in use). */
  keyStats(key: BreakerKey): KeyStats;
  /** The drill's task counters for `operation`. */
  tasks(operation: string): TaskStats;
  /** The fault to inject into an attempt on `key` now (`primary`: the chain's first key), or undefined. */
  faultFor(key: BreakerKey, primary: boolean): DrillKind | undefined;
}

/**
 * Sums over the rollup tables. Counters come as Float64Arrays in the column order of
 * `KEY_COLUMNS` / `PROBE_COLUMNS` (@breakerbox/protocol). Spans are minutes `[first, end)`
 * with `first` on a minute; the engine reads built hourly aggregates where they are
 * current and the per-minute rows elsewhere, so callers never choose a table.
 */
import type { KeyScope } from './key-scope.ts';

/** Per key, per service id: summed key counters (KEY_COLUMNS order). */
export type KeyServiceSums = Map<number, Map<number, Float64Array>>;
/** Per key, per probe location: summed probe counters (PROBE_COLUMNS order). */
export type KeyLocationSums = Map<number, Map<string, Float64Array>>;
/** Per key, per source id: minutes the source reported the key. */
export type KeySourceMinutes = Map<number, Map<number, number>>;

/** One minute of one key × location's warm probes. */
export interface ProbeMinute {
  minute: number;
  probes: number;
  /** Slow or error. */
  failed: number;
  misconfigured: number;
}

/** Per key, per location: probe minutes, newest first. */
export type RecentProbes = Map<number, Map<string, ProbeMinute[]>>;

/** Fallback invocations and failures. */
export interface FallbackCounts {
  invoked: number;
  failed: number;
}

/** Per-instance sums of one key from its per-minute source rollups. */
export interface InstanceSums {
  calls: number;
  failed: number;
  slow: number;
  rejected: number;
  retries: number;
  lastEnd: number;
}

/** Per-operation task counters of one minute: completed, failed, degraded, attempts, cost_usd, level0..4, fallback_invoked, fallback_failed. */
export interface TaskMinuteRow {
  operation: string;
  minute: number;
  /** 12 numbers in the order above. */
  values: number[];
}

/** Warm probe counts of one key × location in one minute (for the probe_failing rule). */
export interface ProbeOutcomeMinute {
  keyId: number;
  location: string;
  minute: number;
  probes: number;
  ok: number;
}

/** Where and how often one location probed one key: its first and last minute with warm probes, and how many minutes had any. */
export interface ProbeActivity {
  keyId: number;
  location: string;
  firstMinute: number;
  lastMinute: number;
  minutes: number;
}

/** Reads of the rollups (what verdicts, keys, key detail, cost, probes and the alert rules need) and the hourly aggregation. */
export interface RollupsPart {
  /** Key counters per key and service over `[first, end)`; one key only when `keyId` is given, the keys of a list when a list. */
  keyServiceSums(first: number, end: number, keyId?: KeyScope): Promise<KeyServiceSums>;
  /** Probe counters per key and location over `[first, end)`. */
  probeSums(first: number, end: number, keyId?: number): Promise<KeyLocationSums>;
  /** Minutes each source reported each key over `[first, end)` (one key, or the keys of a list, when given). */
  keySources(first: number, end: number, keyId?: KeyScope): Promise<KeySourceMinutes>;
  /** Per-minute probe counts in `[first, end)`, newest minute first, per key and location. */
  recentProbes(first: number, end: number, keyId?: number): Promise<RecentProbes>;
  /** `probeSums` and `recentProbes` over the same span from one read of the per-minute rows (for short spans). */
  probesBoth(first: number, end: number, keyId?: number): Promise<{ sums: KeyLocationSums; recent: RecentProbes }>;
  /** One key's counters per minute and service: minute → service id → sums (minutes without data absent). */
  keyMinutes(keyId: number, first: number, end: number): Promise<Map<number, Map<number, Float64Array>>>;
  /** Number of instances reporting one key, per minute. */
  sourcesPerMinute(keyId: number, first: number, end: number): Promise<Map<number, number>>;
  /** One key's probe counters per location and minute: location → minute → sums. */
  probeMinutes(keyId: number, first: number, end: number): Promise<Map<string, Map<number, Float64Array>>>;
  /** Per instance (source id) sums of one key over the minutes of `[from, to)` (`from` is floored to its minute), sources with calls only. */
  instanceSums(keyId: number, from: number, to: number): Promise<Map<number, InstanceSums>>;
  /** Fallback invocations/failures per service id over `[first, end)`. */
  fallbackByService(first: number, end: number): Promise<Map<number, FallbackCounts>>;
  /** Fallback invocations/failures per service id and primary key id (services whose tasks carry their key, migration 010). */
  fallbackByKey(first: number, end: number): Promise<Map<number, Map<number, FallbackCounts>>>;
  /** Fallback invocations/failures per minute, summed over the given services. */
  fallbackMinutes(serviceIds: readonly number[], first: number, end: number): Promise<Map<number, FallbackCounts>>;
  /** Total fallback failures over the minutes `[first, last]` (both inclusive), all services. */
  fallbackFailures(first: number, last: number): Promise<number>;
  /** Task counters per operation and minute over `[first, end)`, one operation when given; unordered. */
  taskMinutes(first: number, end: number, operation?: string): Promise<TaskMinuteRow[]>;
  /**
   * Completed tasks and the tasks answered at each failover level (0..4) per operation, summed
   * over the minutes `[first, end)`; unordered. The serving_degraded rule's window: one row per
   * operation and six sums, where `taskMinutes` would build a row of twelve per minute.
   */
  taskLevelSums(first: number, end: number): Promise<{ operation: string; completed: number; levels: number[] }[]>;
  /** Distinct (operation, service name) pairs with tasks in `[first, end)`, by service name. */
  taskServices(first: number, end: number, operation?: string): Promise<{ operation: string; service: string }[]>;
  /**
   * Cost and completed tasks per operation, split at `split`: `[split, end)` is the
   * window, `[first, split)` its baseline. Unordered.
   */
  costSplit(first: number, split: number, end: number): Promise<{ operation: string; cost: number; completed: number; baseCost: number; baseCompleted: number }[]>;
  /** Warm probe minutes with probes in the minutes `[first, last]` (both inclusive), but none of the key and location pairs in `except`; unordered. */
  probeOutcomes(first: number, last: number, except?: readonly { keyId: number; location: string }[]): Promise<ProbeOutcomeMinute[]>;
  /** Per key and location, the warm probe minutes in `[first, last]` (both inclusive): first, last and how many; unordered. */
  probeActivity(first: number, last: number): Promise<ProbeActivity[]>;
  /** Builds (or rebuilds) the hourly aggregate of one hour, in one transaction. */
  buildHour(hour: number, now: number): Promise<void>;
  /**
   * Builds sealed hours back to `spanMs` before `now` whose aggregate is missing or older
   * than their minutes, newest first, one transaction each, yielding in between. Resolves
   * to how many it built.
   */
  warmHours(spanMs: number, now: number): Promise<{ built: number }>;
}

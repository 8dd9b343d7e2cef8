/**
 * The counter columns of the per-minute (and per-hour) rollup tables, in the order the
 * collector's accumulators and readers lay them out. The SQL migrations create these
 * columns; a test compares each table against these lists.
 */
import { DEFAULT_LATENCY_BOUNDS_MS } from './types.ts';
import { ERROR_CLASSES } from './taxonomy.ts';

/** Buckets of a rollup histogram: one per bound plus +Inf. */
export const ROLLUP_BUCKETS = DEFAULT_LATENCY_BOUNDS_MS.length + 1;

const buckets = (prefix: string): string[] => Array.from({ length: ROLLUP_BUCKETS }, (_, i) => `${prefix}${i}`);

/** `key_minutes` / `key_hours`: one `e_<class>` per taxonomy class, latency `h*` and TTFT `t*` buckets. */
export const KEY_COLUMNS: readonly string[] = [
  'calls', 'ok', 'slow', ...ERROR_CLASSES.map((c) => `e_${c}`), 'rejected', 'short_circuited', 'retries',
  'cold_excluded', 'half_open_ok', 'half_open_failed', 'input_tokens', 'output_tokens', 'cost_usd',
  'windows', 'transitions', 'opens', ...buckets('h'), ...buckets('t'),
];

/** `task_minutes` / `task_hours`. */
export const TASK_COLUMNS: readonly string[] = [
  'completed', 'failed', 'degraded', 'attempts', 'cost_usd',
  'level0', 'level1', 'level2', 'level3', 'level4', 'fallback_invoked', 'fallback_failed',
];

/** `task_key_minutes`: fallback figures per primary key, from `tasks` events that name it. */
export const TASK_KEY_COLUMNS: readonly string[] = ['completed', 'failed', 'fallback_invoked', 'fallback_failed'];

/** `key_minute_sources`: per-instance counters behind "open on N of M" and the local hint. */
export const SOURCE_COLUMNS: readonly string[] = ['calls', 'failed', 'slow', 'rejected', 'retries', 'last_end'];

/**
 * `probe_minutes` / `probe_hours`. `wrong_answer` (migration 072, issue 39) is last: the
 * probes that answered well-formed and missed their canary, inside `probes`, outside `ok`
 * and `error`.
 */
export const PROBE_COLUMNS: readonly string[] = [
  'probes', 'ok', 'slow', 'error', 'misconfigured', 'cold', 'total_ms_sum', 'cost_usd', ...buckets('h'), 'wrong_answer',
];

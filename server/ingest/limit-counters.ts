/** Every ingest limit that can refuse a batch, by the name its answers and counters use. */
export const LIMIT_NAMES = [
  'rate_limit',
  'body_limit_bytes',
  'inflight_body_bytes',
  'new_keys_per_token',
  'new_keys_per_source',
  'live_keys_per_token',
  'live_keys_per_source',
  'invalid',
  'storage_unavailable',
] as const;

/** One of the ingest limits. */
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * How often each ingest limit refused a batch since start. A plain object per app (no
 * module state) that the metrics exposition reads through `snapshot()`.
 */
export interface LimitCounters {
  hit(name: LimitName): void;
  snapshot(): Record<LimitName, number>;
}

/** Creates zeroed counters. */
export function createLimitCounters(): LimitCounters {
  const counts = Object.fromEntries(LIMIT_NAMES.map((n) => [n, 0])) as Record<LimitName, number>;
  return {
    hit(name) {
      counts[name]++;
    },
    snapshot: () => ({ ...counts }),
  };
}

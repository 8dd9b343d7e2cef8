/** A per-token token bucket: `take` answers 0 when allowed, else ms until a request would be. */
export interface RateLimiter {
  take(id: number | string): number;
}

/**
 * Creates a token-bucket limiter: `perSecond` refill, `burst` capacity, one bucket per
 * id. Buckets idle long enough to be full again are dropped so the map stays small.
 */
export function createRateLimiter(options: { perSecond: number; burst: number; now?: () => number }): RateLimiter {
  const { perSecond, burst } = options;
  const now = options.now ?? Date.now;
  const buckets = new Map<number | string, { tokens: number; at: number }>();
  let lastSweep = now();
  const fullAfterMs = (burst / perSecond) * 1000;

  return {
    take(id) {
      const t = now();
      if (t - lastSweep > 60_000) {
        for (const [key, b] of buckets) if (t - b.at > fullAfterMs) buckets.delete(key);
        lastSweep = t;
      }
      let bucket = buckets.get(id);
      if (!bucket) {
        bucket = { tokens: burst, at: t };
        buckets.set(id, bucket);
      }
      bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
      bucket.at = t;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) / perSecond) * 1000);
    },
  };
}

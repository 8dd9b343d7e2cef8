/**
 * The circuit breaker's settings and their defaults (justified in sdk/README.md); the
 * breaker itself is breaker.ts.
 */

/** Breaker settings; every field has a default (see `DEFAULT_BREAKER_OPTIONS`). */
export interface BreakerOptions {
  /** Rolling window the trip statistics cover, ms. */
  windowMs: number;
  /** Slices of the window. */
  buckets: number;
  /** Minimum calls in the window before any share-based signal may trip the breaker. */
  minCalls: number;
  /**
   * Below `minCalls`: this many consecutive provider-side failures trip the breaker
   * (0 turns the signal off). Any other outcome — a success, a slow success, a client
   * fault — ends the run.
   */
  consecutiveFailures: number;
  /** Share of provider-side errors that trips it (0–1). */
  errorThreshold: number;
  /** Share of slow successes that trips it (0–1). */
  slowThreshold: number;
  /** Bulkhead rejections in the window that trip it. */
  rejectionThreshold: number;
  /** Absolute latency ceiling, ms: a success slower than this is a slow call. */
  latencyCeilingMs: number;
  /** Concurrent probes allowed while half-open; extra callers are refused, not queued. */
  halfOpenMaxProbes: number;
  /** Consecutive clean probes that close the breaker. */
  halfOpenSuccesses: number;
  /** Cooldown after the first open, ms. */
  cooldownMs: number;
  /** Factor applied to the cooldown per consecutive open. */
  cooldownMultiplier: number;
  /** Ceiling of the cooldown, ms. */
  maxCooldownMs: number;
  /** Jitter of the cooldown, as a share (0.2 → ±20%). */
  cooldownJitter: number;
  /** Closed this long, the consecutive-open count starts again from zero, ms. */
  stableResetMs: number;
}

/** The breaker defaults, justified in sdk/README.md. */
export const DEFAULT_BREAKER_OPTIONS: Readonly<BreakerOptions> = Object.freeze({
  windowMs: 60_000,
  buckets: 12,
  minCalls: 20,
  consecutiveFailures: 5,
  errorThreshold: 0.5,
  slowThreshold: 0.5,
  rejectionThreshold: 10,
  latencyCeilingMs: 30_000,
  halfOpenMaxProbes: 1,
  halfOpenSuccesses: 3,
  cooldownMs: 5_000,
  cooldownMultiplier: 2,
  maxCooldownMs: 20_000,
  cooldownJitter: 0.2,
  stableResetMs: 300_000,
});

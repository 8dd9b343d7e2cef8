/**
 * Per-key settings: what an application may set (all optional) and the resolved form the
 * policies read (every field present). Resolution happens once, when a key is created.
 */
import { DEFAULT_BREAKER_OPTIONS, type BreakerOptions } from './policies/breaker-options.ts';
import { DEFAULT_BULKHEAD_OPTIONS, type BulkheadOptions } from './policies/bulkhead.ts';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './policies/retry.ts';
import { BreakerboxError, SDK_ERROR_CODES } from './errors/catalog.ts';

/** Layered timeouts, ms; unset means no limit at that layer. */
export interface TimeoutOptions {
  /** TCP + TLS connect (applied by the fetch wrapper's own dispatcher). */
  connectMs?: number;
  /** Until the response headers. */
  firstByteMs?: number;
  /** Until the first content token of a stream. */
  firstTokenMs?: number;
  /** Longest gap between two stream chunks after the first token. */
  idleMs?: number;
  /** The whole call, retries and stream included (a caller's deadline). */
  totalMs?: number;
}

/** Hedging: a second attempt after `delayMs` without an answer, only while the breaker is closed and errors are rare. */
export interface HedgeOptions {
  enabled: boolean;
  delayMs: number;
  /** No hedge while the key's error share is at or above this. */
  maxErrorShare: number;
}

/** What an application may set for a key. */
export interface KeySettings {
  breaker?: Partial<BreakerOptions>;
  bulkhead?: Partial<BulkheadOptions>;
  retry?: Partial<RetryOptions>;
  timeouts?: TimeoutOptions;
  hedge?: Partial<HedgeOptions>;
  /** The first call after this much idle time is left out of the trip statistics, ms. */
  coldAfterIdleMs?: number;
}

/** Settings with every default filled in. */
export interface ResolvedKeySettings {
  breaker: Readonly<BreakerOptions>;
  bulkhead: Readonly<BulkheadOptions>;
  retry: Readonly<RetryOptions>;
  timeouts: Readonly<TimeoutOptions>;
  hedge: Readonly<HedgeOptions>;
  coldAfterIdleMs: number;
}

/** Hedging is off by default. */
export const DEFAULT_HEDGE_OPTIONS: Readonly<HedgeOptions> = Object.freeze({ enabled: false, delayMs: 2_000, maxErrorShare: 0.05 });

/** Five minutes of silence make the next call a cold start. */
export const DEFAULT_COLD_AFTER_IDLE_MS = 300_000;

/** Merges layers of settings (later wins) over the defaults and checks them. */
export function resolveSettings(...layers: Array<KeySettings | undefined>): ResolvedKeySettings {
  const pick = <K extends keyof KeySettings>(k: K) => layers.map((l) => l?.[k]).filter((v) => v !== undefined);
  const r: ResolvedKeySettings = {
    breaker: Object.freeze(Object.assign({}, DEFAULT_BREAKER_OPTIONS, ...pick('breaker'))),
    bulkhead: Object.freeze(Object.assign({}, DEFAULT_BULKHEAD_OPTIONS, ...pick('bulkhead'))),
    retry: Object.freeze(Object.assign({}, DEFAULT_RETRY_OPTIONS, ...pick('retry'))),
    timeouts: Object.freeze(Object.assign({}, ...pick('timeouts'))),
    hedge: Object.freeze(Object.assign({}, DEFAULT_HEDGE_OPTIONS, ...pick('hedge'))),
    coldAfterIdleMs: (pick('coldAfterIdleMs').at(-1) as number | undefined) ?? DEFAULT_COLD_AFTER_IDLE_MS,
  };
  validate(r);
  return r;
}

function validate(r: ResolvedKeySettings): void {
  const bad = (what: string) => {
    throw new BreakerboxError(SDK_ERROR_CODES.INVALID_OPTIONS, `invalid setting: ${what}`);
  };
  const b = r.breaker;
  for (const [k, v] of Object.entries(b)) if (typeof v !== 'number' || !(v >= 0)) bad(`breaker.${k} must be a non-negative number`);
  if (b.errorThreshold > 1 || b.slowThreshold > 1) bad('breaker thresholds are shares between 0 and 1');
  if (b.halfOpenMaxProbes < 1 || b.halfOpenSuccesses < 1) bad('breaker.halfOpenMaxProbes and halfOpenSuccesses must be at least 1');
  if (!(r.bulkhead.maxConcurrent >= 1)) bad('bulkhead.maxConcurrent must be at least 1');
  if (!(r.retry.maxAttempts >= 1)) bad('retry.maxAttempts must be at least 1');
  for (const [k, v] of Object.entries(r.timeouts)) if (v !== undefined && !(typeof v === 'number' && v > 0)) bad(`timeouts.${k} must be a positive number`);
}

/** The settings a `config` telemetry event reports, with the protocol's names. */
export function settingsForTelemetry(r: ResolvedKeySettings): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {
    latency_ceiling_ms: r.breaker.latencyCeilingMs,
    max_concurrent: r.bulkhead.maxConcurrent,
    max_queue: r.bulkhead.maxQueue,
    error_threshold: r.breaker.errorThreshold,
    slow_threshold: r.breaker.slowThreshold,
    rejection_threshold: r.breaker.rejectionThreshold,
    min_calls: r.breaker.minCalls,
    consecutive_failures: r.breaker.consecutiveFailures,
    window_ms: r.breaker.windowMs,
    cooldown_ms: r.breaker.cooldownMs,
    max_cooldown_ms: r.breaker.maxCooldownMs,
    half_open_max_probes: r.breaker.halfOpenMaxProbes,
    half_open_successes: r.breaker.halfOpenSuccesses,
    max_attempts: r.retry.maxAttempts,
    cold_after_idle_ms: r.coldAfterIdleMs,
    hedging: r.hedge.enabled,
  };
  const t = r.timeouts;
  if (t.connectMs !== undefined) out.connect_timeout_ms = t.connectMs;
  if (t.firstByteMs !== undefined) out.first_byte_timeout_ms = t.firstByteMs;
  if (t.firstTokenMs !== undefined) out.first_token_timeout_ms = t.firstTokenMs;
  if (t.idleMs !== undefined) out.stream_idle_timeout_ms = t.idleMs;
  if (t.totalMs !== undefined) out.total_timeout_ms = t.totalMs;
  return out;
}

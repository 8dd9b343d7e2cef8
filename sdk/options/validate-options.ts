/**
 * Validation of everything an application passes to `createBreakerbox` and `bb.fetch`,
 * at construction: a bad value throws `BB_ERR_SDK_INVALID_OPTIONS` naming its field
 * (`err.field`, e.g. `telemetry.url`) instead of failing later inside a model call.
 */
import { ERROR_CLASSES, MAX_WINDOW_SAMPLES, MAX_WINDOW_SAMPLES_BYTES } from '@breakerbox/protocol';
import { arr, bool, either, fn, invalid, num, obj, oneOf, record, required, str, url, type Check } from './option-checks.ts';
import { isOutputValidator } from '../validation/output-validator.ts';

/** An optional `validate`: a JSON Schema object, a validator function or a Standard Schema (`'request'` where allowed). */
const validator = (allowRequest: boolean): Check => (v, path) => {
  if (v === undefined || (allowRequest && v === 'request')) return;
  if (!isOutputValidator(v)) invalid(path, `a JSON Schema object, a validator function or a Standard Schema${allowRequest ? ", or 'request'" : ''}`, v);
};

const ms = num();
const positiveMs = num({ exclusiveMin: true });
const share = num({ max: 1 });
const count = num({ int: true });

const timeouts = obj({ connectMs: positiveMs, firstByteMs: positiveMs, firstTokenMs: positiveMs, idleMs: positiveMs, totalMs: positiveMs });

/** Per-key settings (`defaults`, and what `keySettings` returns). */
export const checkKeySettings: Check = obj({
  breaker: obj({
    windowMs: positiveMs,
    buckets: num({ min: 1, int: true }),
    minCalls: count,
    consecutiveFailures: count,
    errorThreshold: share,
    slowThreshold: share,
    rejectionThreshold: count,
    latencyCeilingMs: positiveMs,
    halfOpenMaxProbes: num({ min: 1, int: true }),
    halfOpenSuccesses: num({ min: 1, int: true }),
    cooldownMs: ms,
    cooldownMultiplier: num({ min: 1 }),
    maxCooldownMs: ms,
    cooldownJitter: share,
    stableResetMs: ms,
  }),
  bulkhead: obj({ maxConcurrent: num({ min: 1, int: true }), maxQueue: count }),
  retry: obj({ maxAttempts: num({ min: 1, int: true }), baseDelayMs: ms, maxDelayMs: ms, maxRetryAfterMs: ms, retryTimeouts: bool }),
  timeouts,
  hedge: obj({ enabled: bool, delayMs: ms, maxErrorShare: share }),
  coldAfterIdleMs: ms,
});

const clock = obj({ now: required(fn, 'a function'), setTimeout: required(fn, 'a function'), clearTimeout: required(fn, 'a function') });

const boundsCheck: Check = (v, path) => {
  arr(num({ exclusiveMin: true }))(v, path);
  if (!Array.isArray(v)) return;
  if (v.length === 0 || v.length > 64) invalid(path, 'a list of 1 to 64 bounds', v);
  for (let i = 1; i < v.length; i++) if (!((v[i] as number) > (v[i - 1] as number))) invalid(`${path}[${i}]`, 'greater than the bound before it', v[i]);
};

/** `createBreakerbox` options. */
export const checkBreakerboxOptions: Check = obj({
  defaults: checkKeySettings,
  keySettings: fn,
  retryBudget: obj({ windowMs: positiveMs, ratio: num(), minRetries: count }),
  budget: obj({ perRequestUsd: num(), hourlyUsd: num(), dailyUsd: num() }),
  prices: record(obj({ inputPerMTok: required(num(), 'a number >= 0'), outputPerMTok: required(num(), 'a number >= 0') })),
  latencyBoundsMs: boundsCheck,
  telemetry: obj({
    url: required(url, 'an http(s) URL string'),
    service: required(str, 'a non-empty string'),
    token: str,
    instance: str,
    intervalMs: positiveMs,
    coalesceMs: ms,
    maxBufferedEvents: num({ min: 1, int: true }),
    maxBatchEvents: num({ min: 1, max: 5_000, int: true }),
    gzip: bool,
    requestTimeoutMs: positiveMs,
    maxReplyBytes: num({ min: 1, int: true }),
    backoffMs: positiveMs,
    maxBackoffMs: positiveMs,
    samplesPerWindow: num({ max: MAX_WINDOW_SAMPLES, int: true }),
    sampleBytesPerWindow: num({ min: 512, max: MAX_WINDOW_SAMPLES_BYTES, int: true }),
  }),
  fleet: either((v, p) => {
    if (typeof v !== 'boolean') invalid(p, 'true or false', v);
  }, obj({
    openWithoutFallback: bool,
    maxTtlMs: positiveMs,
    reconnectMs: positiveMs,
    maxReconnectMs: positiveMs,
    idleTimeoutMs: positiveMs,
    connectTimeoutMs: positiveMs,
    maxEventBytes: num({ min: 256, int: true }),
    resubscribeDelayMs: ms,
  }), 'true, false or an object of fleet options'),
  drills: obj({ enabled: bool }),
  shadowLimits: obj({ maxConcurrent: num({ min: 1, int: true }), timeoutMs: positiveMs }),
  clock,
  random: fn,
});

const level = num({ max: 4, int: true });
const shadowTarget = obj({
  model: required(str, 'a non-empty string'),
  share: required(share, 'a number >= 0 and <= 1'),
  provider: str,
  baseURL: url,
  apiKey: str,
  region: str,
  endpoint: str,
});
const route = obj({ model: str, baseURL: url, apiKey: str, provider: str, region: str, level, exerciseShare: share });

/** `bb.fetch` options. */
export const checkFetchOptions: Check = obj({
  fetch: fn,
  baseURL: url,
  provider: str,
  region: str,
  fallbacks: record(arr(route)),
  signer: (v, p) => {
    if (v !== undefined && (typeof v !== 'object' || v === null || typeof (v as { sign?: unknown }).sign !== 'function')) {
      invalid(p, 'a request signer with a sign(request) method (new SignatureV4(…) from @smithy/signature-v4)', v);
    }
  },
  fallbackOn: arr(oneOf(ERROR_CLASSES)),
  failClosed: bool,
  operation: either(str, fn, 'a non-empty string or a function'),
  timeouts,
  malformedChunks: oneOf(['error', 'skip']),
  endGraceMs: ms,
  midStream: oneOf(['rescue', 'buffer', 'error']),
  prefill: bool,
  maxRescues: num({ max: 5, int: true }),
  exerciseShare: share,
  validate: validator(true),
  idempotent: bool,
  shadow: record(shadowTarget),
});

const breakerKey = obj({ provider: required(str, 'a non-empty string'), endpoint: required(str, 'a non-empty string'), model: required(str, 'a non-empty string'), region: str });

/** `bb.operation` specs. */
export const checkOperationSpec: Check = obj({
  name: required(str, 'a non-empty string'),
  levels: required((v, p) => {
    arr(obj({ level, key: breakerKey, run: required(fn, 'a function'), facts: fn, exerciseShare: share }))(v, p);
    if ((v as unknown[]).length === 0) invalid(p, 'at least one level', v);
  }, 'a list of levels'),
  failClosed: bool,
  fallbackOn: arr(oneOf(ERROR_CLASSES)),
  exerciseShare: share,
  validate: validator(false),
});

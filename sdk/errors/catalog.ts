import type { ErrorClass } from '@breakerbox/protocol';

/**
 * The one catalog of errors the SDK throws. Every code is stable (`BB_ERR_SDK_<WHAT>`):
 * applications may switch on `err.code`; the message is for humans only.
 */
export const SDK_ERROR_CODES = {
  /** The key's breaker is open (or forced open): refused without touching the network. */
  BREAKER_OPEN: 'BB_ERR_SDK_BREAKER_OPEN',
  /** The breaker is half-open and its probe slots are taken: refused, not queued. */
  HALF_OPEN_BUSY: 'BB_ERR_SDK_HALF_OPEN_BUSY',
  /** The key's bulkhead (and its queue, if any) is full. */
  BULKHEAD_FULL: 'BB_ERR_SDK_BULKHEAD_FULL',
  /** A layered timeout fired (connect, first byte, stream idle or total). */
  TIMEOUT: 'BB_ERR_SDK_TIMEOUT',
  /**
   * A stream was cut, stalled, malformed or ended without its end event, after its first
   * token, and could not be rescued (see the SDK README, *Mid-stream rescue*).
   */
  STREAM_BROKEN: 'BB_ERR_SDK_STREAM_BROKEN',
  /** The model stopped on its token limit (`length` / `max_tokens`): not a success. */
  TRUNCATED: 'BB_ERR_SDK_TRUNCATED',
  /**
   * An answer that failed the operation's declared validation (`validate`: a JSON Schema, a
   * validator function or a Standard Schema). Class `invalid_output`: never retried on the
   * same key, failed over by default, never returned as a success.
   */
  INVALID_OUTPUT: 'BB_ERR_SDK_INVALID_OUTPUT',
  /** The provider refused on content/safety grounds. */
  POLICY: 'BB_ERR_SDK_POLICY',
  /** The provider answered with an error status (the class says which kind). */
  PROVIDER_ERROR: 'BB_ERR_SDK_PROVIDER_ERROR',
  /** A cost ceiling (per request, hourly or daily) would be exceeded: refused before sending. */
  BUDGET_EXCEEDED: 'BB_ERR_SDK_BUDGET_EXCEEDED',
  /** Every level of a fallback chain failed or was refused. */
  FALLBACK_EXHAUSTED: 'BB_ERR_SDK_FALLBACK_EXHAUSTED',
  /** A non-idempotent request without an idempotency key was not resent. */
  NOT_IDEMPOTENT: 'BB_ERR_SDK_NOT_IDEMPOTENT',
  /** Options given to a constructor were invalid. */
  INVALID_OPTIONS: 'BB_ERR_SDK_INVALID_OPTIONS',
  /**
   * A fallback or shadow re-targets a signed request (Bedrock's SigV4: another model or base
   * URL) and no `signer` was given to sign it again: refused at `bb.fetch` (or, for a model
   * id not recognisable as Bedrock's, at its first request), never sent with a signature
   * that cannot match.
   */
  SIGNER_REQUIRED: 'BB_ERR_SDK_SIGNER_REQUIRED',
} as const;

export type SdkErrorCode = (typeof SDK_ERROR_CODES)[keyof typeof SDK_ERROR_CODES];

/** Extra facts an SDK error may carry. */
export interface BreakerboxErrorDetails {
  /** The taxonomy class of the failure, when there is one. */
  errorClass?: ErrorClass;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** The provider's own reason (error code, finish reason), propagated verbatim. */
  providerReason?: string;
  /** The provider's request id (`x-request-id` / `request-id`). */
  upstreamRequestId?: string;
  /** Milliseconds the provider asked us to wait (`retry-after`). */
  retryAfterMs?: number;
  /** The underlying error. */
  cause?: unknown;
  /** For invalid options: the path of the offending field (`telemetry.url`). */
  field?: string;
}

/**
 * The error every SDK policy throws. `code` is stable; `errorClass` (when set) is the
 * taxonomy class, which `classifyThrown` reads back without guessing.
 */
export class BreakerboxError extends Error {
  readonly code: SdkErrorCode;
  readonly errorClass: ErrorClass | undefined;
  readonly status: number | undefined;
  readonly providerReason: string | undefined;
  readonly upstreamRequestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** For `BB_ERR_SDK_INVALID_OPTIONS`: the offending field's path. */
  readonly field: string | undefined;

  constructor(code: SdkErrorCode, message: string, details: BreakerboxErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'BreakerboxError';
    this.code = code;
    this.errorClass = details.errorClass;
    this.status = details.status;
    this.providerReason = details.providerReason;
    this.upstreamRequestId = details.upstreamRequestId;
    this.retryAfterMs = details.retryAfterMs;
    this.field = details.field;
  }
}

/** True when `err` is an SDK error, optionally with the given code. */
export function isBreakerboxError(err: unknown, code?: SdkErrorCode): err is BreakerboxError {
  return err instanceof BreakerboxError && (code === undefined || err.code === code);
}

/**
 * The collector's error catalog: one stable code per failure a client or an operator
 * can meet, with its HTTP status. 5xx messages are replaced by a generic text before
 * they reach a client; the cause goes to the log only.
 */

export const ERRORS = {
  BB_ERR_INGEST_INVALID: { status: 400, message: 'the batch is invalid' },
  BB_ERR_INGEST_MALFORMED_JSON: { status: 400, message: 'the body is not valid JSON' },
  BB_ERR_INGEST_MALFORMED_PROTOBUF: { status: 400, message: 'the body is not a valid OTLP protobuf message' },
  BB_ERR_INGEST_BAD_ENCODING: { status: 400, message: 'the body could not be decompressed' },
  BB_ERR_INGEST_UNSUPPORTED_ENCODING: { status: 415, message: 'Content-Encoding must be gzip or identity' },
  BB_ERR_INGEST_UNSUPPORTED_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  BB_ERR_INGEST_TOO_LARGE: { status: 413, message: 'the body is over the size limit' },
  BB_ERR_INGEST_RATE_LIMITED: { status: 429, message: 'this token is over its ingest rate' },
  BB_ERR_INGEST_KEY_RATE: { status: 429, message: 'too many new breaker keys in this interval' },
  BB_ERR_INGEST_TOO_MANY_KEYS: { status: 400, message: 'too many live breaker keys' },
  BB_ERR_INGEST_BUSY: { status: 503, message: 'the collector is receiving too many bodies at once; retry after the Retry-After delay' },
  BB_ERR_FLEET_BUSY: { status: 503, message: 'this collector holds as many fleet feeds as it may; retry after the Retry-After delay' },
  BB_ERR_FLEET_DISABLED: { status: 404, message: 'the fleet feed is turned off on this collector (fleet.enabled)' },
  BB_ERR_DRILL_DISABLED: { status: 404, message: 'failure drills are turned off on this collector (drills.enabled)' },
  BB_ERR_DRILL_ENDED: { status: 409, message: 'this drill run has ended already' },
  BB_ERR_DRILL_NO_SUBSCRIBERS: { status: 404, message: 'no instance of this service is subscribed for drills; schedule_anyway: true starts the run regardless' },
  BB_ERR_DRILL_RUNNING: { status: 409, message: 'a drill of this service is running; stop it or wait for it to end' },
  BB_ERR_QUERY_INVALID: { status: 400, message: 'the query is invalid' },
  BB_ERR_QUERY_NOT_FOUND: { status: 404, message: 'not found' },
  BB_ERR_AUTH_MISSING: { status: 401, message: 'a bearer token is required' },
  BB_ERR_AUTH_INVALID: { status: 401, message: 'the token is unknown or revoked' },
  BB_ERR_AUTH_FORBIDDEN: { status: 403, message: 'the token lacks the right for this' },
  BB_ERR_STORE_MIGRATION_CHANGED: { status: 500, message: 'an applied migration has changed' },
  BB_ERR_STORE_UNAVAILABLE: { status: 503, message: 'the database is not available; retry after the Retry-After delay, keeping the batch' },
  BB_ERR_STORE_READONLY: { status: 500, message: 'the database file cannot be written' },
  BB_ERR_STORE_CORRUPT: { status: 500, message: 'the database file is not a valid SQLite database' },
  BB_ERR_CONFIG_INVALID: { status: 500, message: 'the configuration is invalid' },
  BB_ERR_INTERNAL: { status: 500, message: 'internal error' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error with a stable code, an HTTP status, and optionally the JSON path it is about. */
export class BreakerboxError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly path: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { path?: string; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message ?? ERRORS[code].message, { cause: options.cause });
    this.name = 'BreakerboxError';
    this.code = code;
    this.statusCode = ERRORS[code].status;
    this.path = options.path;
    this.headers = options.headers;
  }
}

/** The JSON body every error answer carries. */
export interface ErrorBody {
  error: { code: string; message: string; path?: string };
}

/** Shapes an error for a client: 5xx text never leaks, a path is kept when there is one. */
export function toErrorBody(err: BreakerboxError): ErrorBody {
  const message = err.statusCode >= 500 ? ERRORS[err.code].message : err.message;
  return { error: { code: err.code, message, ...(err.path !== undefined ? { path: err.path } : {}) } };
}

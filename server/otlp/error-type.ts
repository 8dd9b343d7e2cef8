/**
 * What failed, from what OpenTelemetry carries: `error.type` (GenAI semantic conventions: an
 * exception class name, an HTTP status code, a provider error code, or `_OTHER`), a span's
 * `exception` event, or an HTTP status → a class of breakerbox's error taxonomy, through the
 * same classifier the SDK and the prober use for statuses and provider codes.
 *
 * The exception table is in docs/otlp.md ("Error classes"). A value nothing places is
 * `undefined` here: the mapping counts it as its own visible "unclassified" figure, never
 * as one of the taxonomy's classes (an unexpected class name of a provider-side failure must
 * not read as our own bug).
 */
import { classifyErrorBody, classifyHttpError, isErrorClass, type ErrorClass } from '@breakerbox/protocol';

/**
 * The client exception classes of the official OpenAI and Anthropic SDKs (Python and JS,
 * which share these names), by their last name segment. `RateLimitError` covers both a rate
 * limit and an exhausted quota (both are 429); its message or code tells quota apart where
 * one is present (`classifySpanError`).
 */
export const EXCEPTION_CLASSES: Readonly<Record<string, ErrorClass>> = {
  RateLimitError: 'rate_limit',
  InternalServerError: 'server',
  OverloadedError: 'server', // Anthropic 529
  ServiceUnavailableError: 'server', // Anthropic (Python) 503
  APIResponseValidationError: 'server', // a 2xx the client could not read
  APIConnectionError: 'network',
  APITimeoutError: 'timeout', // Python
  APIConnectionTimeoutError: 'timeout', // JS
  DeadlineExceededError: 'timeout', // Anthropic (Python) 504
  AuthenticationError: 'auth',
  PermissionDeniedError: 'auth',
  BadRequestError: 'bad_request',
  NotFoundError: 'bad_request',
  UnprocessableEntityError: 'bad_request',
  ConflictError: 'server', // 409: a conflicting concurrent update on the provider's side, as classifyHttpError
  RequestTooLargeError: 'bad_request', // Anthropic 413
  APIUserAbortError: 'bad_request', // the caller aborted: ours
  LengthFinishReasonError: 'truncated',
  ContentFilterFinishReasonError: 'policy',
};

/** Names that say only "an error" (base classes): the status or message must tell. */
const GENERIC = /^(error|exception|apierror|apistatuserror|openaierror|anthropicerror|baseexception|_other)$/i;

/** Other clients' class names (LangChain, LiteLLM, httpx, Java, Go), by pattern. */
const PATTERNS: Array<[RegExp, ErrorClass]> = [
  [/timeout|timedout|deadline/i, 'timeout'],
  [/ratelimit|toomanyrequests/i, 'rate_limit'],
  [/quota|insufficientfunds|budget/i, 'quota'],
  [/contextwindow|contextlength|tokenlimit/i, 'context_length'],
  [/contentpolicy|contentfilter|safety|moderation/i, 'policy'],
  [/authentication|permissiondenied|unauthori[sz]ed|forbidden/i, 'auth'],
  [/badrequest|notfound|unprocessable|invalidrequest|validation/i, 'bad_request'],
  [/connection|connect|network|socket|dns|ssl|tls|reset|refused/i, 'network'],
  [/internalserver|serviceunavailable|overloaded|servererror|badgateway|conflict/i, 'server'],
  [/incompleteread|streamerror|chunkedencoding|protocolerror/i, 'stream_broken'],
];

/** Maps one `error.type` value to a taxonomy class, or undefined when nothing places it. */
export function classifyErrorType(value: string): ErrorClass | undefined {
  const v = value.trim();
  if (!v || GENERIC.test(v)) return undefined;
  if (isErrorClass(v)) return v;
  if (/^\d{3}$/.test(v)) {
    const status = Number(v);
    return status >= 400 ? classifyHttpError(status, undefined) : undefined;
  }
  // Provider error codes (`insufficient_quota`, `context_length_exceeded`, `overloaded_error`, …).
  const byCode = classifyErrorBody({ error: { code: v, type: v } });
  if (byCode) return byCode;
  const last = v.split(/[.:$/]/).pop() ?? v;
  const exact = EXCEPTION_CLASSES[last];
  if (exact) return exact;
  if (GENERIC.test(last)) return undefined;
  for (const [pattern, cls] of PATTERNS) if (pattern.test(last)) return cls;
  return undefined;
}

/** A status at the start of a client's error message: JS `503 Service Unavailable`, Python `Error code: 503 - {…}`. */
const STATUS_IN_MESSAGE = /^(?:error code:\s*)?([45]\d\d)\b/i;

/** What the message of a client error says when its class does not (the OpenAI JS client's `name` is always `Error`). */
function classifyMessage(message: string): ErrorClass | undefined {
  const m = message.trim();
  const status = STATUS_IN_MESSAGE.exec(m);
  if (status) return classifyHttpError(Number(status[1]), { error: { message: m, code: /insufficient_quota/.test(m) ? 'insufficient_quota' : undefined } });
  if (/^request timed out|timed? ?out\b/i.test(m)) return 'timeout';
  if (/^connection error|econnreset|econnrefused|socket hang up|fetch failed/i.test(m)) return 'network';
  return undefined;
}

/** The error evidence of one failed span or data point. */
export interface ErrorEvidence {
  errorType?: string;
  exceptionType?: string;
  exceptionMessage?: string;
  statusMessage?: string;
  httpStatus?: number;
}

/**
 * The class of a failed call, first placed of: `error.type`; the `exception` event's type;
 * an HTTP status attribute; the status at the start of the exception or status message
 * (and "Request timed out." / "Connection error."). A `RateLimitError` whose message or
 * code names `insufficient_quota` is `quota`. Undefined: unclassified.
 */
export function classifySpanError(e: ErrorEvidence): ErrorClass | undefined {
  const text = `${e.exceptionMessage ?? ''} ${e.statusMessage ?? ''}`;
  const byType = (e.errorType && classifyErrorType(e.errorType)) || (e.exceptionType && classifyErrorType(e.exceptionType)) || undefined;
  if (byType === 'rate_limit' && /insufficient_quota|exceeded your current quota|credit balance/i.test(text)) return 'quota';
  if (byType) return byType;
  if (e.httpStatus && e.httpStatus >= 400) return classifyHttpError(e.httpStatus, { error: { message: text } });
  return classifyMessage(e.exceptionMessage ?? '') ?? classifyMessage(e.statusMessage ?? '');
}

/** The class a failure nothing places is counted under. */
export const UNCLASSIFIED: ErrorClass = 'unclassified';

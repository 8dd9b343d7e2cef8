/**
 * Classification onto the error taxonomy (`taxonomy.ts`): HTTP status, provider error
 * bodies, thrown errors, finish reasons. The SDK and the prober both import it, so the
 * same response is classified the same way everywhere.
 *
 * Nothing here does I/O or keeps state; `now` is always a parameter.
 */
import type { ErrorClass } from './types.ts';
import { isErrorClass } from './taxonomy.ts';
import { googleStatusClass } from './classify-google.ts';

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  let v = bag[name];
  if (v === undefined) {
    for (const k of Object.keys(bag)) if (k.toLowerCase() === name) v = bag[k];
  }
  return Array.isArray(v) ? v[0] : v;
}

/** The provider's own error identifiers, pulled out of any of the known body shapes. */
export interface ProviderErrorInfo {
  /** OpenAI `error.type` or Anthropic `error.type`. */
  type?: string;
  /**
   * OpenAI `error.code` (e.g. `insufficient_quota`, `context_length_exceeded`); for Google
   * (Gemini API, Vertex AI), whose `error.code` is the HTTP status number, the canonical
   * `error.status` (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`, …).
   */
  code?: string;
  message?: string;
}

/**
 * Reads `{error:{type,code,message}}` (OpenAI and compatibles), `{type:'error',
 * error:{type,message}}` (Anthropic), `{error:{code:429,message,status}}` (Google),
 * `{message, code}` and plain text bodies. A Google error streamed as a JSON array
 * (`[{"error":…}]`) is read as its first element.
 */
export function providerErrorInfo(body: unknown): ProviderErrorInfo {
  if (typeof body === 'string') {
    const trimmed = body.trim();
    if (trimmed.startsWith('{')) {
      try {
        return providerErrorInfo(JSON.parse(trimmed) as unknown);
      } catch {
        // not JSON after all: fall through to text
      }
    }
    return trimmed ? { message: trimmed.slice(0, 500) } : {};
  }
  if (Array.isArray(body)) return body.length > 0 ? providerErrorInfo(body[0] as unknown) : {};
  if (!body || typeof body !== 'object') return {};
  const o = body as Record<string, unknown>;
  const inner = o.error;
  if (inner && typeof inner === 'object') {
    const e = inner as Record<string, unknown>;
    return {
      type: str(e.type),
      code: str(e.code) ?? str(e.status) ?? (typeof e.code === 'number' ? String(e.code) : undefined),
      message: str(e.message),
    };
  }
  if (typeof inner === 'string') return { message: inner, type: str(o.type), code: str(o.code) };
  // AWS JSON errors carry `message` (or `Message`) and, at times, `__type`.
  return { type: o.type === 'error' ? undefined : (str(o.type) ?? awsTypeOfBody(o)), code: str(o.code), message: str(o.message) ?? str(o.Message) };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

const QUOTA_IDS = /insufficient_quota|enforced_spend_limit|billing_hard_limit|billing_not_active|quota_exceeded|spend_limit/i;
const QUOTA_TEXT = /exceeded your current quota|credit balance is too low|spend limit|billing/i;
const CONTEXT_IDS = /context_length_exceeded|string_above_max_length|context_window_exceeded/i;
const CONTEXT_TEXT =
  /maximum context length|context length|context window|prompt is too long|too many (input )?tokens|input is too long|reduce the length of the messages|exceeds the maximum number of tokens/i;
const POLICY_IDS = /content_filter|content_policy|safety|moderation|responsible_?ai|refusal/i;
const POLICY_TEXT = /content management policy|content filter|safety system|flagged|violat\w* (our|the) (usage|content) polic/i;
const RATE_IDS = /rate_limit|too_many_requests|requests_limit|tokens_limit/i;
const OVERLOAD_IDS = /overloaded|api_error|server_error|service_unavailable|internal/i;

/** The class a Google error body names by its `status` (`classify-google.ts`), refined by its message for the bad-request statuses. */
function googleClass(body: unknown, info: ProviderErrorInfo): ErrorClass | undefined {
  const g = googleStatusClass(body, info.code);
  if (g !== 'invalid_argument') return g;
  const text = info.message ?? '';
  if (CONTEXT_TEXT.test(text)) return 'context_length';
  if (POLICY_TEXT.test(text)) return 'policy';
  return 'bad_request';
}

/**
 * AWS error types (Bedrock runtime's `x-amzn-ErrorType`, its stream exceptions'
 * `:exception-type`), lower-cased, and their class. `ValidationException` is read further
 * by its message (a context overflow, a content block).
 */
const AWS_ERROR_CLASSES: Readonly<Record<string, ErrorClass>> = {
  throttlingexception: 'rate_limit',
  toomanyrequestsexception: 'rate_limit',
  servicequotaexceededexception: 'quota',
  serviceunavailableexception: 'server',
  internalserverexception: 'server',
  internalfailure: 'server',
  modelnotreadyexception: 'server',
  modelerrorexception: 'server',
  modelstreamerrorexception: 'server',
  modeltimeoutexception: 'timeout',
  accessdeniedexception: 'auth',
  unrecognizedclientexception: 'auth',
  invalidsignatureexception: 'auth',
  expiredtokenexception: 'auth',
  incompletesignature: 'auth',
  missingauthenticationtokenexception: 'auth',
  resourcenotfoundexception: 'bad_request',
  validationexception: 'bad_request',
  conflictexception: 'server',
};

function awsTypeOfBody(o: Record<string, unknown>): string | undefined {
  const t = str(o.__type);
  return t ? t.slice(t.lastIndexOf('#') + 1) : undefined;
}

/**
 * The AWS error type of an answer: `x-amzn-ErrorType` (`ThrottlingException:http://…`) or
 * the body's `__type` (`com.amazon…#ThrottlingException`); undefined for other providers.
 */
export function awsErrorTypeOf(headers: HeaderBag | undefined, body?: unknown): string | undefined {
  const h = header(headers, 'x-amzn-errortype');
  if (h) return h.split(':', 1)[0]!.trim() || undefined;
  if (typeof body === 'string' && body.trim().startsWith('{')) {
    try {
      body = JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }
  return body && typeof body === 'object' ? awsTypeOfBody(body as Record<string, unknown>) : undefined;
}

/** The class of an AWS error type (`ThrottlingException`, `throttlingException`, …), refined by its message; undefined when unknown. */
export function classifyAwsError(type: string, message = ''): ErrorClass | undefined {
  const cls = AWS_ERROR_CLASSES[type.toLowerCase()];
  if (cls !== 'bad_request' || !/^validation/i.test(type)) return cls;
  if (CONTEXT_TEXT.test(message)) return 'context_length';
  if (POLICY_TEXT.test(message)) return 'policy';
  return 'bad_request';
}

/**
 * Classifies a provider's HTTP error answer. `body` is the parsed JSON (or the raw
 * text) of the response; `headers` is optional and only consulted for hints.
 *
 * Body identifiers win over the bare status where they are more specific: a 429 with
 * `insufficient_quota` is `quota`, a 400 with `context_length_exceeded` is
 * `context_length`, a 400 with a content-filter code is `policy`.
 */
export function classifyHttpError(status: number, body: unknown, headers?: HeaderBag): ErrorClass {
  const info = providerErrorInfo(body);
  const ids = `${info.type ?? ''} ${info.code ?? ''}`;
  const text = info.message ?? '';

  // AWS names the failure in a header: more specific than its status (a 400 ThrottlingException, a 424 model error).
  const aws = status >= 400 ? awsErrorTypeOf(headers, body) : undefined;
  const byAws = aws ? classifyAwsError(aws, text) : undefined;
  if (byAws) return byAws;
  if (status === 401 || status === 403) return 'auth';
  const google = googleClass(body, info);
  if (google) return google;
  if (status === 429) {
    if (QUOTA_IDS.test(ids) || (!RATE_IDS.test(ids) && QUOTA_TEXT.test(text))) return 'quota';
    return 'rate_limit';
  }
  if (status === 408) return 'timeout';
  if (status >= 500) {
    // Some gateways report a quota or context problem with a 5xx; trust the identifier.
    if (QUOTA_IDS.test(ids)) return 'quota';
    if (CONTEXT_IDS.test(ids)) return 'context_length';
    return 'server';
  }
  if (status === 409) return 'server'; // a conflicting concurrent update on the provider's side: transient
  if (status >= 400) {
    if (CONTEXT_IDS.test(ids) || CONTEXT_TEXT.test(text)) return 'context_length';
    if (POLICY_IDS.test(ids) || POLICY_TEXT.test(text)) return 'policy';
    if (QUOTA_IDS.test(ids) || QUOTA_TEXT.test(text)) return 'quota'; // e.g. Anthropic's 400 "credit balance is too low"
    if (/rate_limit/i.test(ids)) return 'rate_limit';
    if (/overloaded/i.test(ids)) return 'server';
    return 'bad_request';
  }
  // A 2xx/3xx handed to an error classifier: the body is the only evidence.
  const byBody = classifyErrorBody(body);
  if (byBody) return byBody;
  if (header(headers, 'retry-after')) return 'rate_limit';
  return 'server';
}

/**
 * Classifies an error object that arrived without a useful status, e.g. an SSE
 * `event: error` in the middle of a stream. Returns undefined when nothing in the body
 * identifies the failure.
 */
export function classifyErrorBody(body: unknown): ErrorClass | undefined {
  const info = providerErrorInfo(body);
  const ids = `${info.type ?? ''} ${info.code ?? ''}`;
  const text = info.message ?? '';
  if (!ids.trim() && !text) return undefined;
  const google = googleClass(body, info);
  if (google) return google;
  if (QUOTA_IDS.test(ids)) return 'quota';
  if (RATE_IDS.test(ids)) return 'rate_limit';
  if (CONTEXT_IDS.test(ids) || CONTEXT_TEXT.test(text)) return 'context_length';
  if (POLICY_IDS.test(ids)) return 'policy';
  if (/authentication|permission|invalid_api_key/i.test(ids)) return 'auth';
  if (/not_found|invalid_request/i.test(ids)) return 'bad_request';
  if (OVERLOAD_IDS.test(ids)) return 'server';
  if (/timeout/i.test(ids)) return 'timeout';
  return undefined;
}

const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ABORT_ERR',
  '23', // DOMException.TIMEOUT_ERR
  '20', // DOMException.ABORT_ERR
]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_INFO',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT|ERR_OSSL_)/;

/**
 * Classifies anything thrown by a model call: our own `BreakerboxError` (its class is
 * read back), the official `openai` / `@anthropic-ai/sdk` errors (status + body),
 * Node/undici network errors (`network`), aborts and timeouts (`timeout`).
 * A thrown value that carries no recognisable trace of the network or of a provider is
 * `bad_request`: most likely a bug on our side, which must not count against the provider.
 */
export function classifyThrown(err: unknown): ErrorClass {
  return classifyDepth(err, 0);
}

function classifyDepth(err: unknown, depth: number): ErrorClass {
  if (!err || typeof err !== 'object') return 'bad_request';
  const e = err as Record<string, unknown>;
  if (isErrorClass(e.errorClass)) return e.errorClass;

  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : typeof e.code === 'number' ? String(e.code) : '';
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;

  // Official SDK errors: APIConnectionTimeoutError / APIUserAbortError / APIConnectionError first,
  // since their `status` is undefined.
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError' || name === 'AbortError' || name === 'APIUserAbortError') {
    return 'timeout';
  }
  if (status !== undefined && status >= 400) {
    const body = 'error' in e && e.error !== undefined ? wrapBody(e.error) : (e.body ?? e.message);
    return classifyHttpError(status, body, e.headers as HeaderBag | undefined);
  }
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (NETWORK_CODES.has(code) || TLS_CODE.test(code)) return 'network';
  if (name === 'SocketError' || name === 'ConnectTimeoutError') return name === 'SocketError' ? 'network' : 'timeout';
  if (name === 'HeadersTimeoutError' || name === 'BodyTimeoutError') return 'timeout';

  if (depth < 5 && e.cause !== undefined && e.cause !== err) {
    const fromCause = classifyDepth(e.cause, depth + 1);
    if (fromCause !== 'bad_request' || hasNetworkTrace(e.cause)) return fromCause;
  }
  const message = typeof e.message === 'string' ? e.message : '';
  if (name === 'APIConnectionError' || /^fetch failed$|socket hang up|other side closed|terminated/i.test(message)) {
    return 'network';
  }
  if (/aborted|timed? ?out/i.test(message) && (name === 'DOMException' || name === 'Error')) return 'timeout';
  return 'bad_request';
}

function hasNetworkTrace(err: unknown): boolean {
  return !!err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string';
}

// The openai client puts the inner `error` object on `err.error`; Anthropic puts the whole body.
function wrapBody(inner: unknown): unknown {
  if (inner && typeof inner === 'object' && !('error' in inner) && ('code' in inner || 'type' in inner)) {
    return (inner as { type?: unknown }).type === 'error' ? inner : { error: inner };
  }
  return inner;
}

/**
 * Parses a `Retry-After` value: delta-seconds (decimals allowed) or an HTTP date,
 * relative to `now` (ms since epoch). Returns milliseconds to wait, or undefined when
 * the value is absent or unreadable. Dates in the past give 0.
 */
export function parseRetryAfter(value: string | number | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  const v = value.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // An HTTP date always names a month; this keeps Date.parse from reading '-1' as a year.
  if (!/[a-z]{3}/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Reads the wait a provider asked for from response headers: `retry-after-ms`
 * (OpenAI) first, then `retry-after`. Returns ms, or undefined.
 */
export function retryAfterFromHeaders(headers: HeaderBag | undefined, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  return parseRetryAfter(header(headers, 'retry-after'), now);
}

/**
 * Finish reasons that are a refusal: OpenAI `content_filter`, Anthropic `refusal`, Gemini's
 * `SAFETY`, `RECITATION`, `PROHIBITED_CONTENT`, `BLOCKLIST`, `SPII`, `IMAGE_SAFETY`,
 * `IMAGE_PROHIBITED_CONTENT`, `IMAGE_RECITATION`, Bedrock's `guardrail_intervened` /
 * `content_filtered` (compared lower-cased). Gemini's prompt
 * `blockReason`s (`SAFETY`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `IMAGE_SAFETY`) are read
 * through the same names. `OTHER` and unknown endings stay unclassified.
 */
const POLICY_FINISH: ReadonlySet<string> = new Set([
  'content_filter', 'refusal', 'safety', 'prohibited_content', 'blocklist',
  'recitation', 'spii', 'image_safety', 'image_prohibited_content', 'image_recitation',
  // Bedrock Converse
  'guardrail_intervened', 'content_filtered',
]);

/**
 * Maps a finish / stop reason to a failure class: `length`, `max_tokens` (and Gemini's
 * `MAX_TOKENS`; the comparison ignores case) → `truncated`; `content_filter`, `refusal`,
 * `safety` and Gemini's refusals (`POLICY_FINISH`) → `policy`. Normal endings (`stop`, `end_turn`,
 * `tool_calls`, `tool_use`, `stop_sequence`, …) and unknown values give undefined.
 */
export function classifyFinishReason(reason: string | null | undefined): ErrorClass | undefined {
  if (!reason) return undefined;
  const r = reason.toLowerCase();
  if (r === 'length' || r === 'max_tokens' || r === 'max_output_tokens' || r === 'model_context_window_exceeded') {
    return r === 'model_context_window_exceeded' ? 'context_length' : 'truncated';
  }
  if (POLICY_FINISH.has(r)) return 'policy';
  return undefined;
}

/**
 * The wait a thrown error asks for: an SDK error's `retryAfterMs`, or the `retry-after-ms`
 * / `retry-after` header of an official client's `APIError`. Undefined when none.
 */
export function retryAfterOfError(err: unknown, now: number = Date.now()): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { retryAfterMs?: unknown; headers?: unknown };
  if (typeof e.retryAfterMs === 'number') return e.retryAfterMs;
  if (e.headers && typeof e.headers === 'object') return retryAfterFromHeaders(e.headers as HeaderBag, now);
  return undefined;
}

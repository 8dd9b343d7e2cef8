/**
 * What the fetch wrapper hands the official clients when the SDK itself ends a request
 * (an open breaker, a full bulkhead, the cost budget, a timeout with no provider answer,
 * a 200 whose body is no answer):
 * an HTTP answer in the shape both `openai` and `@anthropic-ai/sdk` read, so the caller
 * sees `503 breakerbox refused: breaker open for …` (with `err.code` the SDK code)
 * instead of `APIConnectionError: Connection error.`, which reads like a network fault.
 *
 * The answer says `x-should-retry: false`: the SDK already decided about retries.
 */
import { BreakerboxError, SDK_ERROR_CODES, type SdkErrorCode } from '../errors/catalog.ts';

const REFUSALS = new Set<SdkErrorCode>([
  SDK_ERROR_CODES.BREAKER_OPEN,
  SDK_ERROR_CODES.HALF_OPEN_BUSY,
  SDK_ERROR_CODES.BULKHEAD_FULL,
  SDK_ERROR_CODES.BUDGET_EXCEEDED,
  SDK_ERROR_CODES.NOT_IDEMPOTENT,
]);

/** The SDK error behind `err` (a chain's exhaustion names its last cause). */
function sdkErrorOf(err: unknown): BreakerboxError | undefined {
  if (!(err instanceof BreakerboxError)) return undefined;
  // A chain that ended on a network error stays that network error for the client.
  if (err.code === SDK_ERROR_CODES.FALLBACK_EXHAUSTED) return err.cause instanceof BreakerboxError ? err.cause : undefined;
  return err;
}

/**
 * The answer for an SDK error, or undefined for anything else (a network error stays a
 * thrown error: the client's `APIConnectionError` is then the truth).
 */
export function sdkErrorAnswer(err: unknown): Response | undefined {
  const e = sdkErrorOf(err);
  // A provider error with the provider's own answer is handed back as that answer before
  // this is asked; one without (a 200 whose body is no answer: a failed response, missing
  // vectors) gets a 502 saying what was wrong with it.
  if (!e || e.code === SDK_ERROR_CODES.INVALID_OPTIONS) return undefined;
  const refused = REFUSALS.has(e.code);
  const status = refused ? 503 : e.code === SDK_ERROR_CODES.TIMEOUT ? 504 : 502;
  const message = `${refused ? 'breakerbox refused' : 'breakerbox'}: ${e.message}`;
  const body = {
    type: 'error',
    // Anthropic's client shows the top-level message; OpenAI's shows `error.message`.
    message,
    error: { type: refused ? 'breakerbox_refused' : 'breakerbox_error', code: e.code, message, param: null },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-should-retry': 'false',
    'x-breakerbox-error': e.code,
  };
  if (e.retryAfterMs !== undefined) headers['retry-after-ms'] = String(e.retryAfterMs);
  return new Response(JSON.stringify(body), { status, statusText: refused ? 'Service Unavailable (breakerbox)' : 'Bad Gateway (breakerbox)', headers });
}

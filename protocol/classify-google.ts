/**
 * Google's error bodies (the Gemini API and Vertex AI): `{"error":{"code":429,"message",
 * "status":"RESOURCE_EXHAUSTED","details":[…]}}`. The canonical `status` names the class;
 * `classify.ts` calls this first and refines the bad-request statuses by their message
 * with the same text rules as every other provider's. Also the `RetryInfo` delay Google
 * sends in the body instead of a `retry-after` header.
 */
import type { ErrorClass } from './types.ts';

/** Google's canonical error codes that name their class outright. */
const GOOGLE_STATUS: Readonly<Record<string, ErrorClass>> = {
  UNAVAILABLE: 'server',
  INTERNAL: 'server',
  ABORTED: 'server',
  DEADLINE_EXCEEDED: 'timeout',
  PERMISSION_DENIED: 'auth',
  UNAUTHENTICATED: 'auth',
  NOT_FOUND: 'bad_request',
  UNIMPLEMENTED: 'bad_request',
};
const GOOGLE_BAD_REQUEST = /^(INVALID_ARGUMENT|FAILED_PRECONDITION|OUT_OF_RANGE)$/;
/**
 * A `RESOURCE_EXHAUSTED` that is a spent quota rather than a rate: Google answers both with
 * "You exceeded your current quota…", so the window decides — a `QuotaFailure` whose
 * `quotaId` is per day or month, a `limit: 0` (no quota on this plan at all), depleted
 * prepayment credits or a spending cap. Per-minute limits are rate limits.
 */
const GOOGLE_QUOTA = /PerDay|PerMonth|per day|limit: 0\b|prepayment credits|spend(ing)? cap|billing account/i;
/** A wrong key: the Gemini API answers 400 INVALID_ARGUMENT with reason API_KEY_INVALID. */
const GOOGLE_BAD_KEY = /API_KEY_INVALID|API key not valid/;

const textOf = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body ?? ''));

/**
 * The class Google's `status` (`error.status`, read by `providerErrorInfo` as its `code`)
 * names; `invalid_argument` for the bad-request statuses, which the caller refines by the
 * message (context length, policy); undefined when `status` is not one of Google's.
 */
export function googleStatusClass(body: unknown, status: string | undefined): ErrorClass | 'invalid_argument' | undefined {
  if (!status) return undefined;
  if (status === 'RESOURCE_EXHAUSTED') return GOOGLE_QUOTA.test(textOf(body)) ? 'quota' : 'rate_limit';
  const named = GOOGLE_STATUS[status];
  if (named) return named;
  if (GOOGLE_BAD_REQUEST.test(status)) return GOOGLE_BAD_KEY.test(textOf(body)) ? 'auth' : 'invalid_argument';
  return undefined;
}

/**
 * The wait a Google error body asks for: its `google.rpc.RetryInfo` detail's `retryDelay`
 * (`"27s"`, `"1.5s"`), in ms. Google sends no `retry-after` header. Undefined when absent.
 */
export function googleRetryDelayMs(body: unknown): number | undefined {
  let o: unknown = body;
  if (typeof o === 'string') {
    try {
      o = JSON.parse(o) as unknown;
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(o)) o = o[0];
  const details = (o as { error?: { details?: unknown } } | null | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details as Array<Record<string, unknown> | null>) {
    const delay = d?.retryDelay;
    const m = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (m) return Math.round(Number(m[1]) * 1000);
  }
  return undefined;
}

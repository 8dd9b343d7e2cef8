/**
 * `error.type` (GenAI semantic conventions: an exception class name, an HTTP status code,
 * a provider error code, or `_OTHER`) → a class of breakerbox's error taxonomy, through the
 * same classifier the SDK and the prober use. What it cannot place is `other`.
 */
import type { ErrorClass } from '../../sdk/protocol.ts';
import { classifyErrorBody, classifyHttpError, isErrorClass } from '../../sdk/errors/classify.ts';

/** The class for values no rule places; kept apart rather than guessed (see docs/otlp.md). */
export const OTHER = 'other';

/** Exception class names of the common Python / JS / Java clients, by their last segment. */
const EXCEPTIONS: Array<[RegExp, ErrorClass]> = [
  [/timeout|timedout|deadline/i, 'timeout'],
  [/ratelimit|toomanyrequests/i, 'rate_limit'],
  [/quota|insufficientfunds|budget/i, 'quota'],
  [/contextwindow|contextlength|tokenlimit/i, 'context_length'],
  [/contentpolicy|contentfilter|safety|moderation/i, 'policy'],
  [/authentication|permissiondenied|unauthori[sz]ed|forbidden/i, 'auth'],
  [/badrequest|notfound|unprocessable|invalidrequest|validation/i, 'bad_request'],
  [/connection|connect|network|socket|dns|ssl|tls|reset|refused/i, 'network'],
  [/internalserver|serviceunavailable|overloaded|servererror|badgateway|apistatus/i, 'server'],
  [/incompleteread|streamerror|chunkedencoding|protocolerror/i, 'stream_broken'],
];

/** Maps one `error.type` value to a taxonomy class, or `other`. */
export function classifyErrorType(value: string): ErrorClass | typeof OTHER {
  const v = value.trim();
  if (isErrorClass(v)) return v;
  if (/^\d{3}$/.test(v)) {
    const status = Number(v);
    return status >= 400 ? classifyHttpError(status, undefined) : OTHER;
  }
  // Provider error codes (`insufficient_quota`, `context_length_exceeded`, `overloaded_error`, …).
  const byCode = classifyErrorBody({ error: { code: v, type: v } });
  if (byCode) return byCode;
  const last = v.split(/[.:$/]/).pop() ?? v;
  for (const [pattern, cls] of EXCEPTIONS) if (pattern.test(last)) return cls;
  return OTHER;
}

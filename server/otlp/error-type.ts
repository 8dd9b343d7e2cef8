/**
 * `error.type` (GenAI semantic conventions: an exception class name, an HTTP status code,
 * a provider error code, or `_OTHER`) → a class of breakerbox's error taxonomy, through the
 * same classifier the SDK and the prober use.
 *
 * What no rule places is `bad_request`, as `classifyThrown` treats a thrown value with no
 * trace of the network or of a provider: most likely our own bug, counted as a failure but
 * never held against the provider. (Protocol v1 refuses classes outside the taxonomy, and
 * the rollups count only those, so a separate "other" class would be invisible to verdicts.)
 */
import { classifyErrorBody, classifyHttpError, isErrorClass, type ErrorClass } from '@breakerbox/protocol';

/** The class of values no rule places. */
export const UNPLACED: ErrorClass = 'bad_request';

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
  [/internalserver|serviceunavailable|overloaded|servererror|badgateway|conflict/i, 'server'],
  [/incompleteread|streamerror|chunkedencoding|protocolerror/i, 'stream_broken'],
];

/** Maps one `error.type` value to a taxonomy class. */
export function classifyErrorType(value: string): ErrorClass {
  const v = value.trim();
  if (isErrorClass(v)) return v;
  if (/^\d{3}$/.test(v)) {
    const status = Number(v);
    return status >= 400 ? classifyHttpError(status, undefined) : UNPLACED;
  }
  // Provider error codes (`insufficient_quota`, `context_length_exceeded`, `overloaded_error`, …).
  const byCode = classifyErrorBody({ error: { code: v, type: v } });
  if (byCode) return byCode;
  const last = v.split(/[.:$/]/).pop() ?? v;
  for (const [pattern, cls] of EXCEPTIONS) if (pattern.test(last)) return cls;
  return UNPLACED;
}

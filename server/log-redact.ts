/**
 * The collector's log lines never carry a credential: the request URL is cleaned field by
 * field (a credential-named query parameter, or any path segment or value the protocol's
 * catalogue of secret formats recognises), and every finished line passes the same
 * protocol redactor (`redactLogLine`, pino's `streamWrite` hook) — whatever an error
 * message, a notifier's answer or a sender's mistake put in it. One marker, `[redacted]`.
 */
import { REDACTED, isSecretName, redactText } from '@breakerbox/protocol';

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** A path segment or query value fit for a log line: `[redacted]` when it holds a secret. */
const clean = (raw: string): string => (redactText(decoded(raw)) === decoded(raw) ? raw : REDACTED);

/**
 * A request URL fit for a log line: the value of any credential-named query parameter
 * (`?token=…`, `?api_key=…`, a mistake some senders make), and any segment or value shaped
 * like a secret, is replaced by `[redacted]`.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(clean).join('/');
  if (q < 0) return path;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return clean(pair);
    const name = pair.slice(0, eq);
    return isSecretName(decoded(name)) ? `${name}=${REDACTED}` : `${name}=${clean(pair.slice(eq + 1))}`;
  });
  return `${path}?${parts.join('&')}`;
}

/** A JSON value with its strings redacted, and the value of every secret-named field cut whole. */
function redactValue(value: unknown, name: string | undefined): unknown {
  if (typeof value === 'string') return name !== undefined && value !== '' && isSecretName(name) ? REDACTED : redactText(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, undefined));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k);
    return out;
  }
  return value;
}

/**
 * One serialised log line without secrets. The common line has none and is returned as it
 * is; a line that has one is redacted value by value (so it stays valid JSON), or as text
 * when it is not JSON.
 */
export function redactLogLine(line: string): string {
  const text = redactText(line);
  if (text === line) return line;
  try {
    const end = line.endsWith('\n') ? '\n' : '';
    return `${JSON.stringify(redactValue(JSON.parse(line), undefined))}${end}`;
  } catch {
    return text;
  }
}

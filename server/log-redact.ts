/** Query parameters that may carry a credential and never reach a log line as sent. */
const SECRET_PARAMS = /^(token|access_token|api_key|apikey|key_secret|secret|password|session|auth|authorization)$/i;

/**
 * A request URL fit for a log line: the value of any credential-like query parameter
 * (`?token=…`, a mistake some senders make) is replaced by `[redacted]`.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // a malformed name is logged as sent
    }
    return eq >= 0 && SECRET_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

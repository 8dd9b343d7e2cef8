/**
 * Redaction of free text that leaves the host as evidence (a provider's error message in a
 * call sample): API keys, bearer tokens, JWTs, credential-like `name=value` pairs and e-mail
 * addresses become `[redacted]`. Providers echo such things back (OpenAI's "Incorrect API key
 * provided: sk-…", a validation error quoting a user's address), and a sample travels to the
 * collector, its pages and a provider ticket. The rules err on the side of cutting too much.
 */

const RULES: readonly RegExp[] = [
  // `Authorization: Bearer …`, `Bearer …`, `Basic …`
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  // JSON Web Tokens (three base64url parts, the first an encoded `{"`).
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // Provider keys by prefix: OpenAI / Anthropic (`sk-`, `sk-proj-`, `sk-ant-`), AWS, Google, Groq, xAI, Hugging Face, GitHub.
  /\b(?:sk|rk|pk)-[A-Za-z0-9_*-]{8,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b(?:gsk|xai|hf|ghp|gho|github_pat)_[A-Za-z0-9_]{10,}/g,
  // `api_key=…`, `"token": "…"`, `password: …` (the name kept, the value cut).
  /((?:api[_-]?key|apikey|x-api-key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&}]{4,}/gi,
  // E-mail addresses.
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  // Long hex or base64-ish runs (Together, Fireworks and many gateways use bare 40–64 character keys).
  /\b[A-Fa-f0-9]{32,}\b/g,
  /\b[A-Za-z0-9_-]*(?:[0-9][A-Za-z_-]|[A-Za-z_-][0-9])[A-Za-z0-9_-]{38,}\b/g,
];

/** The marker that replaces what was cut. */
export const REDACTED = '[redacted]';

/**
 * `text` with secrets and e-mail addresses replaced by `[redacted]`, then cut to `maxChars`
 * (on a code point boundary). Redaction runs before the cut, so a secret cannot survive by
 * straddling the limit.
 */
export function redactText(text: string, maxChars = Infinity): string {
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule, (match: string, name?: string) => (typeof name === 'string' && match.startsWith(name) ? `${name}${REDACTED}` : REDACTED));
  }
  if (out.length <= maxChars) return out;
  let cut = out.slice(0, Math.max(0, maxChars - 1));
  // Never end on half a surrogate pair: the collector refuses lone surrogates.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

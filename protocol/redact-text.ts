/**
 * Redaction of free text that leaves the host as evidence (a provider's error message in a
 * call sample): API keys, bearer tokens, JWTs, credential-like `name=value` pairs and e-mail
 * addresses become `[redacted]`. Providers echo such things back (OpenAI's "Incorrect API key
 * provided: sk-…", a validation error quoting a user's address), and a sample travels to the
 * collector, its pages and a provider ticket. The rules err on the side of cutting too much.
 */

/** A rule, and a cheap test that must pass before its (costlier) pattern runs at all. */
interface Rule {
  pattern: RegExp;
  may?: (text: string) => boolean;
  /** Keep a match this says is no secret. */
  keep?: (match: string) => boolean;
}

const RULES: readonly Rule[] = [
  // `Authorization: Bearer …`, `Bearer …`, `Basic …`
  { pattern: /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, may: (t) => /bearer|basic/i.test(t) },
  // JSON Web Tokens (three base64url parts, the first an encoded `{"`).
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, may: (t) => t.includes('eyJ') },
  // Provider keys by prefix: OpenAI / Anthropic (`sk-`, `sk-proj-`, `sk-ant-`), AWS, Google, Groq, xAI, Hugging Face, GitHub.
  { pattern: /\b(?:sk|rk|pk)-[A-Za-z0-9_*-]{8,}/g, may: (t) => t.includes('k-') },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, may: (t) => t.includes('AKIA') || t.includes('ASIA') },
  { pattern: /\bAIza[0-9A-Za-z_-]{30,}/g, may: (t) => t.includes('AIza') },
  { pattern: /\b(?:gsk|xai|hf|ghp|gho|github_pat)_[A-Za-z0-9_]{10,}/g, may: (t) => t.includes('_') },
  // `api_key=…`, `"token": "…"`, `password: …` (the name kept, the value cut).
  {
    pattern: /((?:api[_-]?key|apikey|x-api-key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&}]{4,}/gi,
    may: (t) => t.includes(':') || t.includes('='),
  },
  // E-mail addresses.
  { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, may: (t) => t.includes('@') },
  // Long hex runs, and long base64-like runs mixing letters and digits (Together, Fireworks and
  // many gateways use bare 40–64 character keys); words without a digit are kept.
  { pattern: /\b[A-Fa-f0-9]{32,}\b/g },
  { pattern: /\b[A-Za-z0-9_-]{40,}\b/g, keep: (m) => !/[0-9]/.test(m) || !/[A-Za-z]/.test(m) },
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
    if (rule.may && !rule.may(out)) continue;
    out = out.replace(rule.pattern, (match: string, name?: unknown) => {
      if (rule.keep?.(match)) return match;
      return typeof name === 'string' && match.startsWith(name) ? `${name}${REDACTED}` : REDACTED;
    });
  }
  if (out.length <= maxChars) return out;
  let cut = out.slice(0, Math.max(0, maxChars - 1));
  // Never end on half a surrogate pair: the collector refuses lone surrogates.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

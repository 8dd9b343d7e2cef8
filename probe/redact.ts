/**
 * Removes secrets from any text before it is written anywhere: the exact values the
 * prober holds (API keys, the ingest token) and anything shaped like a credential
 * (a provider echoing part of a key in an error message, a bearer header).
 */

/** Replaces secrets in a string. */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

const SHAPES: readonly RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=*-]{6,}/gi,
  /\b(?:sk-ant-|sk-proj-|sk-|sk_|gsk_|xai-|hf_|r8_|pplx-|nvapi-|AIza)[A-Za-z0-9*._-]{2,}[A-Za-z0-9*]/g,
  // A bearer/basic value is handled by the first shape; this one takes bare header values.
  /\b(x-api-key|api-key|authorization)(["']?\s*[:=]\s*["']?)(?!(?:Bearer|Basic)\s|\[REDACTED\])[^\s"',}]{4,}/gi,
];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds a redactor for the given secret values (empty and very short values are
 * ignored: replacing "a" everywhere would hide the log, not a key).
 */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const values = [...new Set([...secrets].filter((s): s is string => typeof s === 'string' && s.length >= 4))];
  values.sort((a, b) => b.length - a.length);
  const exact = values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;
  return (text: string): string => {
    let out = exact ? text.replace(exact, REDACTED) : text;
    out = out.replace(SHAPES[0] as RegExp, `$1 ${REDACTED}`);
    out = out.replace(SHAPES[1] as RegExp, REDACTED);
    out = out.replace(SHAPES[2] as RegExp, `$1$2${REDACTED}`);
    return out;
  };
}

/** Redacts every string inside a JSON-like value (keys too), returning a copy. */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value instanceof Error) return redact(value.message);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v, redact);
    return out;
  }
  return value;
}

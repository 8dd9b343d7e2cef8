/**
 * The one redactor of every breakerbox surface: free text that leaves a host or lands in a
 * store (a provider's error message in a call sample or a probe event, a prober's log line,
 * a collector log line, a notifier's delivery error) loses every secret the catalogue in
 * `secret-formats.ts` knows, and any exact value the caller holds (its own API key, an
 * ingest token, a notifier's URL), to one marker, `[redacted]`. Providers echo such things
 * back (OpenAI's "Incorrect API key provided: sk-…", a gateway quoting a header), and a
 * sample travels to the collector, its pages and a provider ticket. The rules err on the
 * side of cutting too much.
 */
import { SECRET_FORMATS, isSecretName, type SecretFormat } from './secret-formats.ts';

/** The marker that replaces what was cut, the same on every surface. */
export const REDACTED = '[redacted]';

/** Replaces secrets in a string. */
export type Redactor = (text: string) => string;

/** Values of a secret-named pair that are no secret: small counts, booleans, null. */
const HARMLESS_VALUE = /^(?:\d{1,12}|true|false|null|none|undefined)$/i;

/**
 * The `name=value` rule, by hand: a pair whose name says no secret must not swallow the next
 * pair (`Request rejected: X-API-KEY: …` holds one at its value), so the search resumes
 * right after such a name instead of after its value.
 */
function redactNameValues(text: string, pattern: RegExp): string {
  let out = '';
  let from = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const { q = '', name = '', sep = '', value = '' } = m.groups ?? {};
    const quote = /^\\?["']/.exec(value)?.[0] ?? '';
    const inner = quote ? value.slice(quote.length, -quote.length) : value;
    if (!isSecretName(name) || inner.length === 0 || inner === REDACTED || HARMLESS_VALUE.test(inner)) {
      pattern.lastIndex = m.index + q.length + name.length + q.length + sep.length;
      continue;
    }
    out += `${text.slice(from, m.index)}${q}${name}${q}${sep}${quote}${REDACTED}${quote}`;
    from = m.index + m[0].length;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `text` with every secret of the catalogue replaced by the marker (no cut). */
function redactFormats(text: string): string {
  let out = text;
  const lower = text.toLowerCase();
  const seen = new Map<SecretFormat['may'], boolean>();
  for (const f of SECRET_FORMATS) {
    if (f.keywords && !f.keywords.some((k) => lower.includes(k))) continue;
    if (f.may) {
      // Formats sharing one pre-check run it once.
      let ok = seen.get(f.may);
      if (ok === undefined) seen.set(f.may, (ok = f.may(lower)));
      if (!ok) continue;
    }
    if (f.id === 'secret-name-value') {
      out = redactNameValues(out, f.pattern);
      continue;
    }
    f.pattern.lastIndex = 0;
    out = out.replace(f.pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.at(-1) as Record<string, string | undefined> | undefined;
      if (f.keep?.(match)) return match;
      const keep = typeof groups === 'object' && groups !== null ? groups.keep : undefined;
      return `${keep ?? ''}${REDACTED}`;
    });
  }
  return out;
}

/** Cuts `text` to `maxChars` on a code point boundary, marking the cut with `…`. */
function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let out = text.slice(0, Math.max(0, maxChars - 1));
  // Never end on half a surrogate pair: the collector refuses lone surrogates.
  if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1);
  return `${out}…`;
}

/**
 * `text` with secrets and e-mail addresses replaced by `[redacted]`, then cut to `maxChars`
 * (on a code point boundary). Redaction runs before the cut, so a secret cannot survive by
 * straddling the limit.
 */
export function redactText(text: string, maxChars = Infinity): string {
  return cut(redactFormats(text), maxChars);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A redactor that removes the exact `secrets` the caller holds (empty and very short values
 * are ignored: replacing "a" everywhere would hide the text, not a key), then everything
 * the catalogue knows. The same marker for both, so a value is never marked twice.
 */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const values = [...new Set([...secrets].filter((s): s is string => typeof s === 'string' && s.length >= 4))];
  values.sort((a, b) => b.length - a.length);
  const exact = values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;
  return (text: string): string => redactFormats(exact ? text.replace(exact, REDACTED) : text);
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

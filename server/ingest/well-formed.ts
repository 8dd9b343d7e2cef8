/**
 * Lone UTF-16 surrogates can only reach a parsed body through a `\uD800`-style JSON escape
 * (raw bytes that are not UTF-8 decode to U+FFFD instead). Such a string is stored by SQLite
 * as invalid UTF-8 and cannot be read back, so bodies that hold one are refused.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** True when the JSON text may hold a lone surrogate (cheap pre-filter before a walk). */
export const mayHoldSurrogates = (json: string): boolean => SURROGATE_ESCAPE.test(json);

// In unicode mode a surrogate pair is one code point, so this matches lone surrogates only.
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON pointer of the first string (value or object key) in `value` that is not
 * well-formed UTF-16, or null when all are.
 */
export function illFormedStringPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return wellFormed(value) ? null : path || '/';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedStringPath(value[i], `${path}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!wellFormed(k)) return `${path}/${escapePointer(k.replace(new RegExp(LONE_SURROGATE, 'gu'), '\uFFFD'))}`;
      const found = illFormedStringPath(v, `${path}/${escapePointer(k)}`);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * A provider's error message without what it quotes from the request: a sample carries the
 * provider's words, never the caller's prompt. Validation errors quote the input back —
 * vLLM and other pydantic-based servers answer `[{'type': 'string_too_long', 'loc':
 * ('body','messages',0,'content'), 'input': '…'}]` or `… [type=string_too_long,
 * input_value='…', input_type=str]` — and gateways quote a rejected value between quotes.
 * Removed, to the marker: the values of quoting fields (`input`, `input_value`, `value`,
 * `content`, `text`, `prompt`, `messages`), any text between quotes longer than a few words,
 * and (when the caller knows the request) any run of the request's own strings. When a
 * quoted part has no end (the provider cut its message inside the quote), what is left
 * cannot be told apart from the prompt: the message is dropped (`undefined`) and the sample
 * keeps its error type and code only.
 */
import { REDACTED } from './redact-text.ts';

/** Fields a provider's validation error quotes the request in. */
const QUOTING_FIELD = /(?<![A-Za-z0-9_])(["']?)(input_value|input|value|content|text|prompt|messages)\1(\s*(?::|=)\s*)/g;
/** A quoted text of this many words or more is the caller's, not the provider's. */
export const MAX_QUOTED_WORDS = 4;
/** …or of this many characters. */
const MAX_QUOTED_CHARS = 48;
/** A shared run of this length (or longer) with the request's strings is removed. */
const WINDOW = 12;
/** Request strings shorter than this are matched only as a part of a longer run. */
const MIN_WHOLE = 8;

const OPEN: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const QUOTES = new Set(['"', "'", '`']);

/** End index (exclusive) of the quoted string opening at `i`, or -1 when it never closes. */
function quotedEnd(s: string, i: number): number {
  const q = s[i]!;
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === q) return j + 1;
  }
  return -1;
}

/** End index (exclusive) of the quoted or bracketed value starting at `i` (`i` itself for a bare one), or -1 when it never ends. */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === undefined) return i;
  if (QUOTES.has(c)) return quotedEnd(s, i);
  if (c in OPEN) {
    const stack = [OPEN[c]!];
    for (let j = i + 1; j < s.length; j++) {
      const d = s[j]!;
      if (QUOTES.has(d)) {
        const e = quotedEnd(s, j);
        if (e < 0) return -1;
        j = e - 1;
      } else if (d in OPEN) stack.push(OPEN[d]!);
      else if (d === stack.at(-1)) {
        stack.pop();
        if (stack.length === 0) return j + 1;
      }
    }
    return -1;
  }
  // A bare value (`input_type=str`, `content: text content blocks …`) is the provider's own word.
  return i;
}


/** The message with quoting fields' values cut, or undefined when one never ends. */
function withoutQuotingFields(s: string): string | undefined {
  let out = '';
  let from = 0;
  QUOTING_FIELD.lastIndex = 0;
  for (let m = QUOTING_FIELD.exec(s); m; m = QUOTING_FIELD.exec(s)) {
    const start = m.index + m[0].length;
    const end = valueEnd(s, start);
    if (end < 0) return undefined;
    const value = s.slice(start, end);
    if (value === '' || value.slice(1, -1) === REDACTED) continue;
    const q = QUOTES.has(value[0]!) ? value[0]! : '';
    out += `${s.slice(from, start)}${q}${REDACTED}${q}`;
    from = end;
    QUOTING_FIELD.lastIndex = end;
  }
  return out + s.slice(from);
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The message with long quoted texts cut, or undefined when a long quote never closes. */
function withoutLongQuotes(s: string): string | undefined {
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!QUOTES.has(c) && c !== '\u201C' && c !== '\u2018') continue;
    // An opening quote follows a non-word character (`model's` is no quote).
    if (isWordChar(s[i - 1])) continue;
    const close = c === '\u201C' ? '\u201D' : c === '\u2018' ? '\u2019' : c;
    let j = i + 1;
    for (; j < s.length; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === close && !isWordChar(s[j + 1])) break;
    }
    const inner = s.slice(i + 1, Math.min(j, s.length));
    const long = inner.length > MAX_QUOTED_CHARS || inner.trim().split(/\s+/).length >= MAX_QUOTED_WORDS;
    if (j >= s.length) {
      // Never closed: a long run after it may be the prompt, cut where the provider cut it.
      if (long && inner !== REDACTED) return undefined;
      continue;
    }
    if (long && inner !== REDACTED) {
      out += `${s.slice(from, i + 1)}${REDACTED}${close}`;
      from = j + 1;
    }
    i = j;
  }
  return out + s.slice(from);
}

/** Keys of a request body whose values are settings, not content. */
const SETTING_KEYS = new Set(['model', 'role', 'type', 'object', 'id', 'tool_choice', 'service_tier', 'reasoning_effort', 'encoding_format', 'response_format', 'stop', 'user', 'name', 'format']);

/** The strings of a request body (JSON: its content strings; else the whole text), for `withoutRequestText`. */
export function requestStringsOf(body: string | undefined): string[] {
  if (!body) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.length >= WINDOW ? [body] : [];
  }
  const out: string[] = [];
  const walk = (v: unknown, key: string | undefined): void => {
    if (typeof v === 'string') {
      if (key === undefined || !SETTING_KEYS.has(key)) out.push(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(parsed, undefined);
  return out;
}

/** The message with every run it shares with `strings` (≥ 2·WINDOW−1 characters, or a whole string ≥ MIN_WHOLE) cut. */
function withoutRequestStrings(s: string, strings: readonly string[]): string {
  const spans: [number, number][] = [];
  for (const r of strings) {
    if (r.length >= MIN_WHOLE) {
      for (let at = s.indexOf(r); at >= 0; at = s.indexOf(r, at + r.length)) spans.push([at, at + r.length]);
    }
    if (r.length < WINDOW) continue;
    // Every shared run of 2·WINDOW−1 characters holds one window starting at a multiple of WINDOW.
    for (let w = 0; w + WINDOW <= s.length; w += WINDOW) {
      const p = r.indexOf(s.slice(w, w + WINDOW));
      if (p < 0) continue;
      let a = w;
      let b = w + WINDOW;
      let pa = p;
      let pb = p + WINDOW;
      while (a > 0 && pa > 0 && s[a - 1] === r[pa - 1]) (a--, pa--);
      while (b < s.length && pb < r.length && s[b] === r[pb]) (b++, pb++);
      if (b - a >= 2 * WINDOW - 1 || (pa === 0 && pb === r.length)) spans.push([a, b]);
    }
  }
  if (spans.length === 0) return s;
  spans.sort((x, y) => x[0] - y[0]);
  let out = '';
  let from = 0;
  for (const [a, b] of spans) {
    if (b <= from) continue;
    out += `${s.slice(from, Math.max(from, a))}${REDACTED}`;
    from = b;
  }
  return out + s.slice(from);
}

/**
 * `message` without what it quotes from the request (see the module comment), or undefined
 * when that cannot be decided. `requestStrings` are the request's own strings, when the
 * caller knows them (`requestStringsOf`).
 */
export function withoutRequestText(message: string, requestStrings: readonly string[] = []): string | undefined {
  let out: string | undefined = requestStrings.length > 0 ? withoutRequestStrings(message, requestStrings) : message;
  // Without a quote there is nothing quoted to cut (the common provider message).
  if (!/["'`\u201C\u2018\[{(]/.test(out)) return out;
  out = withoutQuotingFields(out);
  if (out === undefined) return undefined;
  return withoutLongQuotes(out);
}

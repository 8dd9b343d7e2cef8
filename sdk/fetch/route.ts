/**
 * How the fetch wrapper reads a request: provider from the host, endpoint family from the
 * path, stream dialect (chat, Responses, Anthropic messages) — and how it re-targets a request at a
 * fallback route (another base URL, model or key).
 */
import type { StreamDialect } from '../streams/stream-dialect.ts';
import { chatDialect } from '../streams/dialect-chat.ts';
import { messagesDialect } from '../streams/dialect-messages.ts';
import { responsesDialect } from '../streams/dialect-responses.ts';

export { providerOf } from '@breakerbox/protocol';

const ENDPOINTS: Array<[string, string]> = [
  ['/chat/completions', 'chat'],
  ['/messages', 'messages'],
  ['/embeddings', 'embeddings'],
  ['/responses', 'responses'],
  ['/completions', 'completions'],
];

/** The endpoint family of a path and the index where its endpoint part starts, or undefined. */
export function endpointOf(pathname: string): { family: string; at: number } | undefined {
  for (const [suffix, family] of ENDPOINTS) {
    const at = pathname.lastIndexOf(suffix);
    if (at >= 0 && at + suffix.length === pathname.replace(/\/+$/, '').length) return { family, at };
  }
  return undefined;
}

/** The stream dialect of an endpoint family (chat's for the OpenAI-compatible others). */
export function dialectOf(family: string): StreamDialect {
  return family === 'messages' ? messagesDialect : family === 'responses' ? responsesDialect : chatDialect;
}

/** Whether the family's provider takes its key as `x-api-key` (Anthropic) rather than a Bearer token. */
export function usesApiKeyHeader(family: string): boolean {
  return family === 'messages';
}

/**
 * Re-targets `url` at `baseURL`: the endpoint part of the path (from `/chat/completions`,
 * `/messages`, …) is appended to the base, whose own path is kept (`https://host/v1`).
 */
export function retarget(url: URL, baseURL: string, endpointAt: number): URL {
  const base = new URL(baseURL);
  const out = new URL(base.toString());
  out.pathname = base.pathname.replace(/\/+$/, '') + url.pathname.slice(endpointAt);
  out.search = url.search;
  return out;
}

/** `headers` with `apiKey` in place of the caller's key, in the header(s) the family's provider reads. */
export function withApiKey(headers: Headers, apiKey: string, family: string): Headers {
  const out = new Headers(headers);
  if (out.has('x-api-key') || (!out.has('authorization') && usesApiKeyHeader(family))) out.set('x-api-key', apiKey);
  if (out.has('authorization') || !usesApiKeyHeader(family)) out.set('authorization', `Bearer ${apiKey}`);
  return out;
}

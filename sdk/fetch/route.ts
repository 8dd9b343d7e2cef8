/**
 * How the fetch wrapper reads a request: provider from the host, endpoint family from the
 * path, dialect (OpenAI-compatible or Anthropic) — and how it re-targets a request at a
 * fallback route (another base URL, model or key).
 */
import type { StreamDialect } from '../streams/sse-frames.ts';

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

/** The stream dialect of an endpoint family. */
export function dialectOf(family: string): StreamDialect {
  return family === 'messages' ? 'anthropic' : 'openai';
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

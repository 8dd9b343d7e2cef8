/**
 * One model API the fetch wrapper protects, as a table entry (as hono's router reads a
 * route table): how a request to it is recognised and read (endpoint family, model, stream,
 * provider and region), how a fallback re-targets it the way that API names a model and
 * takes a key, how its streams are framed and read, and what its JSON answers say.
 * `apis/index.ts` holds the table; `create-fetch.ts` runs any entry through the same
 * policies.
 */
import type { BreakerboxError } from '../../errors/catalog.ts';
import type { CallFacts } from '../../call-types.ts';
import type { StreamDialect } from '../../streams/stream-dialect.ts';
import type { StreamFraming } from '../../streams/stream-framing.ts';
import type { RequestSigner } from '../request-signer.ts';

/** A model call the wrapper recognised. */
export interface ModelCall {
  api: ModelApi;
  /** Endpoint family of the key: `chat`, `messages`, `responses`, `embeddings`, `completions`, `generate`, … */
  family: string;
  model: string;
  stream: boolean;
  /** Index in the URL's path where the part a fallback's base URL is put before starts. */
  at: number;
  /** The key's provider when the API says it (else the host's name). */
  provider?: string;
  /** The key's region when the URL carries it (a Vertex location, a Bedrock host). */
  region?: string;
}

/** Where a route sends instead: another base URL, model or key (a fallback, a shadow). */
export interface RouteTarget {
  baseURL?: string | undefined;
  model?: string | undefined;
  apiKey?: string | undefined;
  /** The route's region: an API that names it in the path (a Vertex location) re-targets the path too. */
  region?: string | undefined;
}

/** What one attempt sends. */
export interface OutgoingRequest {
  url: URL;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One model API. */
export interface ModelApi {
  /** Stable name: `openai-compatible`, `azure-deployments`, `gemini`, … */
  readonly id: string;
  /** The model call `url` with JSON `body` is, or undefined when it is not one of this API's. */
  read(url: URL, body: Record<string, unknown>): ModelCall | undefined;
  /** The request re-targeted at `to`; returns `req`'s own body object when the body is unchanged. */
  retarget(call: ModelCall, req: OutgoingRequest, to: RouteTarget): OutgoingRequest;
  /** The stream dialect of one of its families. */
  dialect(family: string): StreamDialect;
  /** The framing of a streamed answer of this content type; undefined when it is not a stream of this API. */
  streamFraming(contentType: string | null): StreamFraming | undefined;
  /** Usage, finish reason and served model of a JSON answer. */
  jsonFacts(body: unknown, upstreamRequestId: string | undefined): CallFacts;
  /** The provider failure a 200 JSON answer hides, or undefined when it is an answer. */
  jsonFailure(family: string, body: unknown, request: Record<string, unknown>, upstreamRequestId: string | undefined): BreakerboxError | undefined;
  /** The output token limit the request sets (the cost estimate's), when it sets one. */
  maxOutputTokens(body: Record<string, unknown>): number | undefined;
  /**
   * For APIs whose requests are signed over their URL and body (Bedrock's SigV4): the
   * headers of `req` signed again with the fetch option `signer`, for a request a route
   * re-targeted. Absent: a route's request is sent with the caller's headers.
   */
  sign?(req: OutgoingRequest, bodyText: string, signer: RequestSigner): Promise<Headers>;
}

/** `url` with its path from `at` on put after `baseURL`'s path (`https://host/v1` keeps `/v1`). */
export function rebase(url: URL, baseURL: string, at: number): URL {
  const base = new URL(baseURL);
  const out = new URL(base.toString());
  out.pathname = base.pathname.replace(/\/+$/, '') + url.pathname.slice(at);
  out.search = url.search;
  return out;
}

/** Headers that carry a model API key, in the order the wrapper prefers when none is present. */
const KEY_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'] as const;

/**
 * `headers` with `apiKey` in place of the caller's key, in every key header the caller
 * used; `fallback` (a header name) when it used none.
 */
export function withApiKey(headers: Headers, apiKey: string, fallback: (typeof KEY_HEADERS)[number]): Headers {
  const out = new Headers(headers);
  const used = KEY_HEADERS.filter((h) => out.has(h));
  for (const h of used.length > 0 ? used : [fallback]) out.set(h, h === 'authorization' ? `Bearer ${apiKey}` : apiKey);
  return out;
}

/**
 * The request with `apiKey` in place of the caller's key, wherever the caller put it: the
 * `?key=` query parameter (Google's APIs accept it) and any key header it used; `fallback`
 * (a header) when it used neither.
 */
export function withApiKeyIn(url: URL, headers: Headers, apiKey: string, fallback: (typeof KEY_HEADERS)[number]): { url: URL; headers: Headers } {
  if (!url.searchParams.has('key')) return { url, headers: withApiKey(headers, apiKey, fallback) };
  const out = new URL(url);
  out.searchParams.set('key', apiKey);
  return { url: out, headers: KEY_HEADERS.some((h) => headers.has(h)) ? withApiKey(headers, apiKey, fallback) : headers };
}

/** A short fingerprintable form of the caller's key, from whichever key header or `?key=` it used (a SigV4 signature's access key id). */
export function callerKeyOf(headers: Headers, url: URL): string | undefined {
  for (const h of KEY_HEADERS) {
    const v = headers.get(h);
    // A SigV4 signature changes with every request: the access key id names the credential.
    const sigv4 = h === 'authorization' ? /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//i.exec(v ?? '') : null;
    if (sigv4) return sigv4[1];
    if (v) return h === 'authorization' ? v.replace(/^Bearer\s+/i, '') : v;
  }
  return url.searchParams.get('key') ?? undefined;
}

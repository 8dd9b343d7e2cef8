/**
 * `http`: any other endpoint the product calls (rerank, moderation, a gateway, a
 * self-hosted model), described by method, path, headers and body. Embeddings have their
 * own kind (`openai-embeddings`), which checks the vectors. The answer must have an
 * expected status and, by default, a JSON body. Health and status endpoints are
 * refused: a probe sends what the product sends.
 */
import { isRecord, show, type FieldReader } from '../config-fields.ts';
import { count, isObject, joinUrl, malformed, tryJson } from './chat-request.ts';
import type { OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, Usage } from './types.ts';

interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  authHeader: string;
  authScheme: string;
  expectStatus: number[] | undefined;
  expectJson: boolean;
  expectContains: string | undefined;
}

const FIELDS = ['method', 'path', 'headers', 'body', 'auth_header', 'auth_scheme', 'expect_status', 'expect_json', 'expect_contains'];
const HEALTH_PATH = /(^|\/)(health|healthz|healthcheck|status|ping|ready|readyz|live|livez|heartbeat)(\/|$|\?)/i;
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)$/i;

function usageOf(body: Record<string, unknown>): Usage | undefined {
  const u = body.usage;
  if (!isObject(u)) return undefined;
  const input = count(u.prompt_tokens) ?? count(u.input_tokens);
  const output = count(u.completion_tokens) ?? count(u.output_tokens) ?? 0;
  return input === undefined ? undefined : { inputTokens: input, outputTokens: output };
}

function parseHeaders(r: FieldReader): Record<string, string> {
  const raw = r.obj.headers;
  if (raw === undefined) return {};
  if (!isRecord(raw)) {
    r.problem('headers', `must be an object of header names to values, got ${show(raw)}`);
    return {};
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (CREDENTIAL_HEADER.test(name)) {
      r.problem(`headers.${name}`, 'a literal credential is refused; put the key in an environment variable named by api_key_env');
    } else if (typeof value !== 'string') {
      r.problem(`headers.${name}`, `must be a string, got ${show(value)}`);
    } else {
      headers[name.toLowerCase()] = value;
    }
  }
  return headers;
}

function parseExpectStatus(r: FieldReader): number[] | undefined {
  const raw = r.obj.expect_status;
  if (raw === undefined) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0 || !list.every((s) => Number.isInteger(s) && (s as number) >= 200 && (s as number) < 400)) {
    r.problem('expect_status', `must be a status 200..399 or a list of them, got ${show(raw)}`);
    return undefined;
  }
  return list as number[];
}

/** The `http` kind. */
export const httpKind: ProbeAdapter<HttpRequest> = {
  kind: 'http',
  requiresApiKey: false,

  parseRequest(r: FieldReader, _ctx: ParseContext): HttpRequest | undefined {
    r.rejectUnknown(FIELDS);
    const path = r.string('path', { required: true, pattern: /^\/\S*$/, hint: 'must start with "/"' });
    if (path !== undefined && HEALTH_PATH.test(path)) {
      r.problem('path', 'a health or status endpoint is refused: probe with a real request of the shape the product sends');
    }
    const rawBody = r.obj.body;
    let body: string | undefined;
    if (typeof rawBody === 'string') body = rawBody;
    else if (rawBody !== undefined && rawBody !== null) body = JSON.stringify(rawBody);
    const method = r.string('method', { pattern: /^(GET|POST|PUT)$/, hint: 'must be GET, POST or PUT' });
    const headers = parseHeaders(r);
    if (body !== undefined && typeof rawBody !== 'string' && !headers['content-type']) headers['content-type'] = 'application/json';
    const request: HttpRequest = {
      method: (method as HttpRequest['method'] | undefined) ?? (body === undefined ? 'GET' : 'POST'),
      path: path ?? '/',
      headers,
      body,
      authHeader: r.string('auth_header', { pattern: /^[A-Za-z0-9-]+$/, hint: 'must be a header name' }) ?? 'authorization',
      authScheme: typeof r.obj.auth_scheme === 'string' ? r.obj.auth_scheme : 'Bearer',
      expectStatus: parseExpectStatus(r),
      expectJson: r.boolean('expect_json') ?? true,
      expectContains: r.string('expect_contains', { maxLength: 200 }),
    };
    if (request.method === 'GET' && body !== undefined) r.problem('body', 'a GET request cannot have a body');
    return path === undefined ? undefined : request;
  },

  streamed: () => false,
  estimateTokens: () => ({ inputTokens: 0, outputTokens: 0 }),
  acceptsStatus: (req, status) => (req.expectStatus ? req.expectStatus.includes(status) : status >= 200 && status < 300),

  buildRequest(baseUrl: URL, req: HttpRequest, apiKey: string | undefined): OutgoingRequest {
    const headers = { ...req.headers };
    if (apiKey) headers[req.authHeader.toLowerCase()] = req.authScheme ? `${req.authScheme} ${apiKey}` : apiKey;
    return { url: joinUrl(baseUrl, req.path), method: req.method, headers, ...(req.body === undefined ? {} : { body: req.body }) };
  },

  checkBody(req: HttpRequest, text: string): ShapeVerdict {
    if (req.expectContains !== undefined && !text.includes(req.expectContains)) {
      return malformed(tryJson(text) ?? text, 'body does not contain the expected text');
    }
    if (!req.expectJson) return { ok: true };
    const body = tryJson(text);
    if (body === undefined) return malformed(text, 'body is not JSON');
    if (isObject(body) && body.error !== undefined && body.error !== null) return malformed(body, 'error object in a success answer');
    const usage = isObject(body) ? usageOf(body) : undefined;
    return usage ? { ok: true, usage } : { ok: true };
  },

  createStreamChecker(): StreamChecker {
    // `streamed` is always false for this kind; a checker that accepts the end keeps the contract total.
    return { onEvent: () => ({}), end: () => ({ ok: true }) };
  },
};

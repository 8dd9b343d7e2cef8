/**
 * The Gemini API and Vertex AI in the fake provider: `POST /{v1|v1beta}/models/{model}:…`
 * and `/{v1|v1beta1}/projects/{p}/locations/{l}/publishers/{pub}/models/{model}:…` (and
 * express mode's `/v1/publishers/{pub}/models/{model}:…`) — `generateContent`,
 * `streamGenerateContent` (SSE with `?alt=sse`, else a JSON array written element by
 * element), `embedContent`, `batchEmbedContents`. The key is `x-goog-api-key` or `?key=`
 * (Vertex: also `Authorization: Bearer`); a wrong key gets the real API's 400
 * `API_KEY_INVALID` (Gemini) or 401 `UNAUTHENTICATED` (Vertex).
 *
 * The same `fake.script` faults as the other APIs, in Google's forms: `rate_limit` → 429
 * `RESOURCE_EXHAUSTED` with a per-minute `QuotaFailure` (and `RetryInfo` for `retryAfter`
 * seconds), `quota` → the same with a per-day quota, `status` → the canonical status of the
 * code (503 `UNAVAILABLE`, …; `code` sets `error.status`), `context_length` → 400 "input
 * token count … exceeds the maximum", `model_not_found` → 404 `NOT_FOUND`, `finish_length`
 * and a `maxOutputTokens` under the answer → `MAX_TOKENS`, `content_filter` → `SAFETY`
 * (`as: 'error'`: a prompt blocked with `promptFeedback.blockReason`), `stream_error` → an
 * `{"error":…}` chunk; `cut_stream`, `stall`, `malformed_chunk`, `slow_first_token`,
 * `no_end_event` (everything sent; `keepOpen` holds the connection) between chunks.
 * Thinking models (`gemini-2.5-*`, `gemini-3*`) spend `reasoningTokens` first unless
 * `thinkingConfig.thinkingBudget` is 0, within `maxOutputTokens`, as the real API does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attempt, Fault } from './fake-provider-types.ts';
import { estimateInputTokens } from './fake-provider-bodies.ts';
import { emptyFinalChunk, embedJson, generateJson, googleError, newGoogleResponseId, resourceExhausted, streamChunk, type GoogleShape } from './fake-provider-gemini-bodies.ts';
import { flushed, headerValue, numberOr, sleep } from './fake-provider-util.ts';

/** A Google path the fake serves. */
export interface GoogleRoute {
  api: 'generate' | 'embed';
  pathModel: string;
  method: string;
  vertex: boolean;
}

const GEMINI = /^\/(v1|v1beta|v1alpha)\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;
const VERTEX = /^\/(v1|v1beta1)\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/[^/]+\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent)$/;

/** The Google route of a path, or undefined. */
export function googleRouteOf(path: string): GoogleRoute | undefined {
  const g = GEMINI.exec(path);
  const v = g ? undefined : VERTEX.exec(path);
  const m = g ?? v;
  if (!m) return undefined;
  const method = m[3]!;
  return { api: method.endsWith('mbedContent') || method === 'batchEmbedContents' ? 'embed' : 'generate', pathModel: decodeURIComponent(m[2]!), method, vertex: !g };
}

/** What the shared server hands the Google handler. */
export interface GoogleContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: GoogleRoute;
  attempt: Attempt;
  body: unknown;
  apiKeys: string[];
  fault: () => Fault;
  /** Whether the model exists (the server's `models` / `retirements`). */
  known: (model: string) => boolean;
  latencyMs: number;
  tokens: number;
  tokenIntervalMs: number;
  reasoningTokens: number;
  signal: AbortSignal;
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const THINKING = /^gemini-(2\.5|3)/;

function keyOf(req: IncomingMessage, vertex: boolean): string | undefined {
  const header = headerValue(req.headers['x-goog-api-key']);
  if (header) return header;
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('key');
  if (query) return query;
  return vertex ? /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1] : undefined;
}

/** Serves one Google request (the attempt is already logged). */
export async function serveGoogle(c: GoogleContext): Promise<void> {
  const { req, res, route, attempt } = c;
  const send = (code: number, json: unknown) => {
    attempt.status = code;
    res.writeHead(code, { 'content-type': JSON_TYPE });
    res.end(JSON.stringify(json, null, 2));
  };
  if (req.method !== 'POST') return send(404, googleError(404, { message: `Method not found.` }));
  const key = keyOf(req, route.vertex);
  if (!key || !c.apiKeys.includes(key)) {
    if (route.vertex) return send(401, googleError(401));
    return send(400, googleError(400, {
      message: 'API key not valid. Please pass a valid API key.',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
    }));
  }
  const b = (c.body && typeof c.body === 'object' ? c.body : undefined) as Record<string, unknown> | undefined;
  if (!b) return send(400, googleError(400, { message: 'Invalid JSON payload received.' }));
  const model = route.pathModel;
  const fault = c.fault();
  attempt.fault = fault.kind;
  if (fault.kind === 'reset') {
    req.socket.destroy();
    return;
  }
  if (fault.kind === 'no_response') return;
  await sleep(fault.latencyMs ?? c.latencyMs, c.signal);
  if (c.signal.aborted) return;
  const notFound = () => send(404, googleError(404, { message: `models/${model} is not found for API version v1beta, or is not supported for ${route.method}. Call ListModels to see the list of available models and their supported methods.` }));
  if (!c.known(model)) return notFound();

  switch (fault.kind) {
    case 'rate_limit':
      return send(429, resourceExhausted('rate', model, typeof fault.retryAfter === 'number' ? fault.retryAfter : undefined));
    case 'quota':
      return send(429, resourceExhausted('quota', model));
    case 'status':
      return send(fault.status, googleError(fault.status, { status: fault.code ?? fault.errorType, message: fault.message }));
    case 'context_length':
      return send(400, googleError(400, { message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).' }));
    case 'model_not_found':
      return notFound();
    default:
      break;
  }

  if (route.api === 'embed') {
    if (fault.kind === 'slow_first_token') await sleep(fault.ms, c.signal);
    if (c.signal.aborted) return;
    return send(200, embedJson(model, b, route.method === 'batchEmbedContents', fault.embeddingDimensions, fault.kind === 'bad_embeddings' ? fault.how : undefined));
  }
  const shape = shapeOf(model, b, fault, c);
  if (route.method === 'generateContent') return writeJson(c, shape, fault);
  const sse = new URL(req.url ?? '/', 'http://x').searchParams.get('alt') === 'sse';
  return writeStream(c, shape, fault, sse);
}

function shapeOf(model: string, b: Record<string, unknown>, fault: Fault, c: GoogleContext): GoogleShape {
  const gen = (b.generationConfig ?? {}) as Record<string, unknown>;
  const budget = (gen.thinkingConfig as { thinkingBudget?: unknown } | undefined)?.thinkingBudget;
  const thinking = THINKING.test(model) && budget !== 0 ? Math.min(fault.reasoningTokens ?? c.reasoningTokens, numberOr(budget, Infinity)) : 0;
  const wanted = fault.tokens ?? c.tokens;
  const cap = numberOr(gen.maxOutputTokens, Infinity);
  // Thinking is spent first and counts against maxOutputTokens.
  const spent = Math.min(thinking, cap);
  const tokens = Math.max(0, Math.min(wanted, cap - spent));
  const fc = ((b.toolConfig as { functionCallingConfig?: { mode?: unknown } } | undefined)?.functionCallingConfig?.mode);
  const tools = Array.isArray(b.tools) ? (b.tools as Array<{ functionDeclarations?: Array<{ name?: unknown }> }>) : [];
  const toolName = fault.toolName ?? String(tools[0]?.functionDeclarations?.[0]?.name ?? 'lookup');
  // As on the other APIs, an explicit `output` wins over what the request forces.
  const output = (fault.output ?? (fc === 'ANY' && tools.length > 0 ? 'tool_call' : 'text')) === 'tool_call' ? 'tool_call' : 'text';
  let finish: string | undefined = tokens < wanted || fault.kind === 'finish_length' ? 'MAX_TOKENS' : 'STOP';
  let blockReason: string | undefined;
  if (fault.kind === 'content_filter') {
    if (fault.as === 'error') {
      blockReason = 'SAFETY';
      finish = undefined;
    } else finish = 'SAFETY';
  }
  return {
    model: fault.servedModel ?? model,
    ...(fault.text !== undefined ? { text: fault.text } : {}),
    ...(fault.toolArgs !== undefined ? { args: fault.toolArgs } : {}),
    responseId: newGoogleResponseId(),
    tokens: blockReason ? 0 : tokens,
    shift: fault.textShift ?? 0,
    promptTokens: estimateInputTokens({ messages: b.contents, system: b.systemInstruction }),
    thoughtsTokens: spent,
    finish,
    blockReason,
    output,
    toolName,
  };
}

async function writeJson(c: GoogleContext, a: GoogleShape, fault: Fault): Promise<void> {
  const { res, attempt } = c;
  if (fault.kind === 'slow_first_token') await sleep(fault.ms, c.signal);
  if (c.signal.aborted) return;
  const full = JSON.stringify(generateJson(a), null, 2);
  attempt.status = 200;
  if (fault.kind === 'malformed_chunk') {
    res.writeHead(200, { 'content-type': JSON_TYPE });
    res.end(full.slice(0, Math.floor(full.length / 2)));
    return;
  }
  if (fault.kind === 'cut_stream' || fault.kind === 'stall') {
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(full)) });
    await flushed(res, full.slice(0, Math.floor(full.length / 2)));
    if (fault.kind === 'cut_stream') res.destroy();
    return;
  }
  attempt.tokensSent = a.tokens;
  res.writeHead(200, { 'content-type': JSON_TYPE });
  res.end(full);
}

async function writeStream(c: GoogleContext, a: GoogleShape, fault: Fault, sse: boolean): Promise<void> {
  const { res, attempt } = c;
  attempt.status = 200;
  res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : JSON_TYPE, 'cache-control': 'no-cache' });
  // SSE as the real API writes it (`data: …` and CRLF CRLF); the array pretty-printed, `,\r\n` between elements.
  let first = true;
  const frame = (o: unknown) => {
    if (sse) return `data: ${JSON.stringify(o)}\r\n\r\n`;
    const head = first ? '[' : ',\r\n';
    first = false;
    return head + JSON.stringify(o, null, 2);
  };
  const malformed = () => {
    if (sse) return 'data: {"candidates": [{"content": {"parts": [{"text": "\r\n\r\n';
    const head = first ? '[' : ',\r\n';
    first = false;
    return `${head}{not json}`;
  };
  let lastWrite = Promise.resolve();
  const cut = async () => {
    await lastWrite;
    if ((fault as { how?: string }).how === 'end') res.end();
    else res.destroy();
  };
  const interval = fault.tokenIntervalMs ?? c.tokenIntervalMs;
  for (let i = 0; i < a.tokens; i++) {
    await sleep(i === 0 && fault.kind === 'slow_first_token' ? fault.ms : interval, c.signal);
    if (c.signal.aborted) return;
    if (fault.kind === 'cut_stream' && i === fault.afterTokens) return cut();
    if (fault.kind === 'stall' && i === fault.afterTokens) return;
    if (fault.kind === 'stream_error' && i === fault.afterTokens) {
      res.end(frame(googleError(503, { status: fault.code })) + (sse ? '' : '\r\n]'));
      return;
    }
    if (fault.kind === 'malformed_chunk' && i === fault.afterTokens) {
      res.write(malformed());
    }
    lastWrite = flushed(res, frame(streamChunk(a, i)));
    attempt.tokensSent = i + 1;
  }
  if (a.tokens === 0) {
    if (fault.kind === 'slow_first_token') await sleep(fault.ms, c.signal);
    if (c.signal.aborted) return;
    lastWrite = flushed(res, frame(emptyFinalChunk(a)));
  }
  if (fault.kind === 'cut_stream' && fault.afterTokens >= a.tokens) return cut();
  if (fault.kind === 'stall' && fault.afterTokens >= a.tokens) return;
  if (fault.kind === 'stream_error' && fault.afterTokens >= a.tokens) {
    res.end(frame(googleError(503, { status: fault.code })) + (sse ? '' : '\r\n]'));
    return;
  }
  if (fault.kind === 'no_end_event' && fault.keepOpen) return;
  res.end(sse ? '' : '\r\n]');
}

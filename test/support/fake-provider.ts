/**
 * A fault-injecting fake model provider: a real node:http server on port 0 that speaks
 * OpenAI's `POST /v1/chat/completions`, `/v1/responses` and `/v1/embeddings` and
 * Anthropic's `POST /v1/messages`, JSON and SSE, with faults scripted per model and a log
 * of every attempt. The bodies follow the official clients' types: text or tool-call
 * answers (`tool_calls`, `function_call`, `tool_use`), reasoning models' hidden tokens in
 * usage, Anthropic `thinking` / `redacted_thinking` blocks, Responses `response.completed`
 * / `response.incomplete`, embeddings as floats or base64.
 *
 * Gemini API and Vertex AI paths (`/v1beta/models/{model}:generateContent`, …) are served
 * in Google's wire format, with the same faults: `fake-provider-gemini.ts`.
 * Amazon Bedrock runtime (`/model/{modelId}/converse`, `/converse-stream`, `/invoke`,
 * `/invoke-with-response-stream`, SigV4 verified, AWS event-stream frames) is served by
 * `fake-provider-bedrock.ts` with the same scripts.
 *
 * Shared by the SDK's and the prober's tests and by the demo. Usage:
 *
 * ```ts
 * const fake = await startFakeProvider();            // key 'test-key', 8 tokens per answer
 * const openai = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
 * const anthropic = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
 * fake.script('gpt-4o', [{ kind: 'status', status: 500 }]);   // next request 500, then healthy
 * fake.script('gpt-4o', { kind: 'rate_limit' }, { persistent: true }); // every request 429 until rescripted
 * fake.attempts                                       // what reached the server, in order
 * await fake.close();
 * ```
 *
 * Faults (each may also carry `latencyMs`, `tokens`, `tokenIntervalMs`, `textShift`):
 * - `ok` — a normal answer. `latencyMs` delays the headers ("delay before headers").
 * - `rate_limit` — 429 `rate_limit_exceeded` (OpenAI) / `rate_limit_error` (Anthropic);
 *   `retryAfter` (seconds or an HTTP date) adds a `retry-after` header, absent otherwise.
 * - `quota` — OpenAI: 429 `insufficient_quota`; Anthropic: 400 "credit balance is too low" (as the real API).
 * - `status` — any status with the dialect's real default body (500, 503, 529, 400, 401, 404, 422, …);
 *   `errorType`/`code`/`message`/`headers` override. OpenAI 502/504 answer with an HTML gateway page.
 * - `context_length` — 400 `context_length_exceeded` / Anthropic "prompt is too long".
 * - `model_not_found` — 404 `model_not_found` / `not_found_error`.
 * - `reset` — the TCP connection is destroyed before any header.
 * - `no_response` — the request is read and never answered (until the client gives up or `close()`).
 * - `slow_first_token` — stream: headers and head frames at once, first token after `ms`;
 *   JSON: the whole answer after `ms`.
 * - `cut_stream` — after `afterTokens` tokens the socket is destroyed (`how: 'reset'`, default)
 *   or the response ends cleanly without finish/end event (`how: 'end'`).
 * - `stall` — after `afterTokens` tokens nothing more is sent; the connection stays open.
 * - `malformed_chunk` — after `afterTokens` tokens one frame of broken JSON, then the rest as normal.
 * - `no_end_event` — finish reason and usage sent, but no `[DONE]` / `message_stop`; then the
 *   response ends (`keepOpen: false`, default) or the connection stays open (`keepOpen: true`).
 * - `finish_length` — a complete answer with finish_reason `length` / stop_reason `max_tokens`.
 * - `content_filter` — `as: 'finish'` (default): finish_reason `content_filter` / stop_reason
 *   `refusal`; `as: 'error'`: 400 with code `content_filter` / "Output blocked by content filtering policy".
 * - `no_prefill` — a request ending with an assistant turn gets 400 "does not support assistant
 *   message prefill" (as recent Anthropic models answer); any other request is served `ok`.
 * - `stream_error` — after `afterTokens` units the API's own mid-stream failure, then the end:
 *   chat `data: {"error":…}`, Anthropic `event: error`, Responses `response.failed`
 *   (default) or `event: error` (`as: 'error'`); `code` sets the error's code / type.
 *   A non-streamed Responses request gets a 200 `response` with `status: "failed"`; chat and
 *   messages answer as `ok`.
 * - `bad_embeddings` — a 200 embeddings answer with no vectors (`missing`), one too few or
 *   too many (`count`), a short first vector (`dimension`), empty vectors (`empty`) or an
 *   all-zero first vector (`zeros`).
 *
 * Modifiers: `output: 'tool_call'` answers with a call of the request's first tool (the
 * default when the request forces one), its arguments streamed in `tokens` pieces;
 * `output: 'refusal'` (chat) answers `content: null` with the words as `refusal`;
 * `embeddingDimensions` sets the size of the vectors an embeddings answer holds;
 * `reasoningTokens` sets the hidden tokens of a reasoning model or of Anthropic thinking;
 * `redactedThinking` sends a `redacted_thinking` block instead of `thinking`;
 * `thinkingMs` pauses a stream between its thinking (or reasoning item) and the answer.
 * Responses: `finish_length` and `content_filter` end in `response.incomplete`
 * (`max_output_tokens` / `content_filter`), and so does a `max_output_tokens` cap.
 *
 * Assistant prefill (Anthropic): a request whose last message is an assistant turn with
 * text gets the continuation — the answer's tokens after the prefilled ones, as the real
 * API continues a prefilled turn. The answer is deterministic (one word per token), so a
 * regenerated answer repeats the same text.
 *
 * Stream faults on a non-streamed request: `cut_stream` sends half the JSON body then
 * destroys the socket, `stall` sends half and stalls, `malformed_chunk` sends invalid JSON
 * with status 200, `no_end_event` behaves like `ok`.
 *
 * With `responsesMinOutputTokens: 16`, a Responses `max_output_tokens` below 16 gets 400
 * `integer_below_min_value`, as the real API's floor.
 *
 * Like the real APIs: a wrong or missing key (`Authorization: Bearer` for OpenAI,
 * `x-api-key` or Bearer for Anthropic) gets 401; `max_tokens` / `max_completion_tokens`
 * below the answer length stops the answer there with finish `length` / `max_tokens`
 * (so a 1-token probe sees `length`, as it would on the real API). Reasoning models (see
 * `reasoningModels`) refuse `max_tokens` on chat with 400 `unsupported_parameter` and spend
 * their hidden tokens first, within the cap; Anthropic thinking needs `max_tokens` above
 * `budget_tokens`. Every answer carries
 * `x-request-id` (OpenAI) or `request-id` (Anthropic).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { baseHeaders, errorAnswer, newRequestId, type Api, type Dialect } from './fake-provider-bodies.ts';
import { dialectOfApi, writeAnswer, type AnswerDefaults } from './fake-provider-answer.ts';
import { requestRefusal } from './fake-provider-refusals.ts';
import { prefillOf } from './fake-provider-prefill.ts';
import type { Attempt, FakeProvider, FakeProviderOptions, Fault } from './fake-provider-types.ts';
import type { BedrockOp } from './fake-provider-bedrock.ts';
import { closeSignal, headerValue, readBody, redact, sleep } from './fake-provider-util.ts';
import { googleRouteOf, serveGoogle, type GoogleRoute } from './fake-provider-gemini.ts';
import { FAKE_AWS_CREDENTIALS, bedrockRouteOf, handleBedrock, newBedrockRequestId } from './fake-provider-bedrock.ts';

export type { Api, Dialect } from './fake-provider-bodies.ts';
export type { Attempt, FakeProvider, FakeProviderOptions, Fault, FaultTiming, ScriptOptions } from './fake-provider-types.ts';

const API_PATHS: Record<string, Api> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/embeddings': 'embeddings',
  '/v1/messages': 'messages',
};

/** Where a request's path sends it: the API, and the model when the path names it (an Azure deployment, a Gemini model). */
interface Routed {
  api: Api | BedrockOp | 'unknown';
  pathModel?: string;
  /** A Gemini API or Vertex AI path (served by `fake-provider-gemini.ts`). */
  google?: GoogleRoute;
  /** A Bedrock runtime path (served by `fake-provider-bedrock.ts`). */
  bedrock?: BedrockOp;
}

/** Azure OpenAI's deployment paths: the deployment (the model) in the path, `api-version` in the query. */
const AZURE_DEPLOYMENT = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings|responses)$/;

/** The API of a path (one table per wire format; paths of other APIs are unknown: 404). */
function routeOf(path: string): Routed {
  const google = googleRouteOf(path);
  if (google) return { api: google.api, pathModel: google.pathModel, google };
  const known = API_PATHS[path];
  if (known) return { api: known };
  const bedrock = bedrockRouteOf(path);
  if (bedrock) return { api: bedrock.op, pathModel: bedrock.model, bedrock: bedrock.op };
  const azure = AZURE_DEPLOYMENT.exec(path);
  if (azure) return { api: API_PATHS[`/v1/${azure[2]}`]!, pathModel: decodeURIComponent(azure[1]!) };
  return { api: 'unknown' };
}

interface Script {
  faults: Fault[];
  next: number;
  persistent: boolean;
}

const OK: Fault = { kind: 'ok' };

/** Starts a fake provider on an ephemeral loopback port. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const o = {
    apiKeys: options.apiKeys ?? ['test-key'],
    latencyMs: options.latencyMs ?? 0,
    tokens: options.tokens ?? 8,
    tokenIntervalMs: options.tokenIntervalMs ?? 0,
    models: options.models ? new Set(options.models) : undefined,
    host: options.host ?? '127.0.0.1',
  };
  const defaults: AnswerDefaults = {
    tokens: o.tokens,
    tokenIntervalMs: o.tokenIntervalMs,
    reasoningModels: options.reasoningModels ?? ((m) => /^(o[1-9]|gpt-5)/.test(m)),
    reasoningTokens: options.reasoningTokens ?? 16,
    responsesMinOutputTokens: options.responsesMinOutputTokens ?? 0,
  };
  const scripts = new Map<string, Script>();
  const attempts: Attempt[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const stopping = new AbortController();
  let seq = 0;

  function nextFault(model: string | undefined): Fault {
    const s = (model !== undefined ? scripts.get(model) : undefined) ?? scripts.get('*');
    if (!s || s.faults.length === 0) return OK;
    if (s.next >= s.faults.length) {
      if (!s.persistent) return OK;
      s.next = 0;
    }
    return s.faults[s.next++]!;
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const routed = routeOf(path);
    if (routed.bedrock) return bedrock(req, res, raw, routed.bedrock, routed.pathModel!);
    const api = routed.api as Api | 'unknown';
    const dialect: Dialect | 'unknown' = api === 'unknown' ? 'unknown' : dialectOfApi(api);
    let body: unknown;
    try {
      body = raw.length ? (JSON.parse(raw) as unknown) : undefined;
    } catch {
      body = raw;
    }
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const model = routed.pathModel ?? (typeof b.model === 'string' ? b.model : undefined);
    const d: Dialect = dialect === 'unknown' || dialect === 'google' ? 'openai' : dialect;
    const requestId = newRequestId(d);
    const attempt: Attempt = {
      seq: ++seq,
      ts: Date.now(),
      dialect,
      api,
      method: req.method ?? 'GET',
      path,
      // A key in the query (`?key=`, Google's APIs) is redacted like a key header.
      query: ((req.url ?? '').split('?')[1] ?? '').replace(/(^|&)key=[^&]*/, '$1key=[redacted]'),
      model,
      stream: routed.google ? routed.google.method === 'streamGenerateContent' : b.stream === true,
      fault: 'ok',
      status: undefined,
      requestId,
      headers: redact(req.headers),
      body,
      tokensSent: 0,
      clientAborted: false,
    };
    attempts.push(attempt);
    for (const w of waiters) w();

    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      if (!finished) attempt.clientAborted = true;
    });

    if (routed.google) {
      await serveGoogle({
        req,
        res,
        route: routed.google,
        attempt,
        body,
        apiKeys: o.apiKeys,
        fault: () => nextFault(model),
        known: (m) => !(o.models && !o.models.has(m)) && !(options.retirements?.[m] !== undefined && (options.now ?? Date.now)() >= options.retirements[m]!),
        latencyMs: o.latencyMs,
        tokens: o.tokens,
        tokenIntervalMs: o.tokenIntervalMs,
        reasoningTokens: defaults.reasoningTokens,
        signal: AbortSignal.any([stopping.signal, closeSignal(res)]),
      });
      return;
    }

    const sendError = (status: number, over: { type?: string; code?: string | null; message?: string } = {}, extra: Record<string, string> = {}) => {
      const e = errorAnswer(d, status, requestId, over);
      attempt.status = status;
      res.writeHead(status, { ...baseHeaders(d, requestId), 'content-type': e.contentType, ...extra });
      res.end(e.body);
    };

    if (api === 'unknown' || req.method !== 'POST') {
      sendError(404, { type: 'invalid_request_error', code: null, message: `Invalid URL (${req.method} ${path})` });
      return;
    }
    if (!authorised(d, req)) {
      sendError(401);
      return;
    }
    if (typeof body !== 'object' || body === null) {
      sendError(400, { message: 'We could not parse the JSON body of your request.' });
      return;
    }
    const deprecated = model === undefined ? undefined : options.deprecations?.[model];
    // Set before any status line: Node merges these into whatever writeHead sends.
    if (deprecated?.deprecation !== undefined) res.setHeader('deprecation', deprecated.deprecation);
    if (deprecated?.sunset !== undefined) res.setHeader('sunset', deprecated.sunset);
    const fault = nextFault(model);
    attempt.fault = fault.kind;
    const signal = AbortSignal.any([stopping.signal, closeSignal(res)]);

    if (fault.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'no_response') return; // kept open until the client or close() ends it
    await sleep(fault.latencyMs ?? o.latencyMs, signal);
    if (signal.aborted) return;
    const retiredAt = model === undefined ? undefined : options.retirements?.[model];
    if ((o.models && model !== undefined && !o.models.has(model)) || (retiredAt !== undefined && (options.now ?? Date.now)() >= retiredAt)) {
      sendError(404, { message: `The model \`${model}\` does not exist or you do not have access to it.` });
      return;
    }
    const refusal = requestRefusal(api, b, defaults);
    if (refusal) {
      sendError(400, refusal);
      return;
    }

    switch (fault.kind) {
      case 'rate_limit': {
        const extra: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
        sendError(429, {}, extra);
        return;
      }
      case 'quota':
        if (d === 'openai') {
          sendError(429, {
            type: 'insufficient_quota',
            code: 'insufficient_quota',
            message: 'You exceeded your current quota, please check your plan and billing details.',
          });
        } else {
          sendError(400, { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' });
        }
        return;
      case 'status':
        sendError(fault.status, { type: fault.errorType, code: fault.code, message: fault.message }, fault.headers ?? {});
        return;
      case 'context_length':
        if (d === 'openai') {
          sendError(400, {
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
            message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
          });
        } else {
          sendError(400, { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' });
        }
        return;
      case 'no_prefill':
        if (prefillOf(d, b) !== undefined) {
          sendError(400, { type: 'invalid_request_error', message: 'This model does not support assistant message prefill. The conversation must end with a user message.' });
          return;
        }
        break;
      case 'model_not_found':
        sendError(404, { message: `The model \`${model ?? ''}\` does not exist or you do not have access to it.` });
        return;
      case 'content_filter':
        if (fault.as === 'error') {
          if (d === 'openai') {
            sendError(400, {
              type: 'invalid_request_error',
              code: 'content_filter',
              message: "The response was filtered due to the prompt triggering the content management policy.",
            });
          } else {
            sendError(400, { type: 'invalid_request_error', message: 'Output blocked by content filtering policy' });
          }
          return;
        }
        break;
      default:
        break;
    }
    await writeAnswer(api, b, fault, attempt, res, signal, defaults);
  }

  /** A Bedrock runtime request: logged as any other, served by `fake-provider-bedrock.ts`. */
  async function bedrock(req: IncomingMessage, res: ServerResponse, raw: string, op: BedrockOp, model: string): Promise<void> {
    const attempt: Attempt = {
      seq: ++seq, ts: Date.now(), dialect: 'unknown', api: op, method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]!,
      query: (req.url ?? '').split('?')[1] ?? '', model, stream: false, fault: 'ok', status: undefined, requestId: newBedrockRequestId(),
      headers: redact(req.headers), body: raw, tokensSent: 0, clientAborted: false,
    };
    attempts.push(attempt);
    for (const w of waiters) w();
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      if (!finished) attempt.clientAborted = true;
    });
    await handleBedrock({
      req, res, raw, op, model, attempt, nextFault, defaults,
      credentials: options.awsCredentials ?? [FAKE_AWS_CREDENTIALS],
      apiKeys: o.apiKeys,
      signal: AbortSignal.any([stopping.signal, closeSignal(res)]),
    });
  }

  function authorised(d: Dialect, req: IncomingMessage): boolean {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = d === 'anthropic' ? (headerValue(req.headers['x-api-key']) ?? bearer) : (bearer ?? headerValue(req.headers['api-key']));
    return key !== undefined && o.apiKeys.includes(key);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    geminiBaseUrl: url,
    azureEndpoint: url,
    anthropicBaseUrl: url,
    bedrockBaseUrl: url,
    awsCredentials: (options.awsCredentials ?? [FAKE_AWS_CREDENTIALS])[0]!,
    apiKey: o.apiKeys[0] ?? '',
    attempts,
    attemptsFor: (model) => attempts.filter((a) => a.model === model),
    script(model, faults, opts = {}) {
      scripts.set(model, { faults: Array.isArray(faults) ? [...faults] : [faults], next: 0, persistent: opts.persistent ?? false });
    },
    clear(model) {
      if (model === undefined) scripts.clear();
      else scripts.delete(model);
    },
    reset() {
      scripts.clear();
      attempts.length = 0;
    },
    waitForAttempts(n, timeoutMs = 5000) {
      if (attempts.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake provider: ${attempts.length} attempts after ${timeoutMs} ms, wanted ${n}`));
        }, timeoutMs);
        const check = () => {
          if (attempts.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async close() {
      stopping.abort();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

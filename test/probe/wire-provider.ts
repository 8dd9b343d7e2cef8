/**
 * A small OpenAI-compatible provider for the prober's tests of its newer kinds, on a real
 * port: `/v1/chat/completions` (reasoning models included), `/v1/responses` (JSON and
 * SSE) and `/v1/embeddings`. It behaves as the real API does where a probe can get it
 * wrong: a reasoning model refuses `max_tokens` (400 `unsupported_parameter`), spends its
 * thinking out of the output budget and ends `length` / `incomplete` with no text when
 * the budget is too small; the Responses API refuses `max_output_tokens` below 16.
 * Failures are scripted per model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatChunks, chatCompletion, embeddingsList, errorEnvelope, responseEvents, responseObject, type ResponseEnd } from './wire-bodies.ts';

/** A scripted behaviour of one model. */
export type WireMode =
  | 'ok'
  | 'incomplete' // Responses: status incomplete (max_output_tokens)
  | 'content_filter' // Responses: status incomplete (content_filter)
  | 'failed' // Responses: status failed, error server_error
  | 'error_event' // Responses stream: an `error` event (rate_limit_exceeded)
  | 'no_terminal' // Responses stream: ends after the deltas, without response.completed
  | 'no_text' // Responses: completed with no output message
  | 'no_data' // embeddings: `data` missing
  | 'short' // embeddings: one vector fewer than inputs
  | 'zeros' // embeddings: an all-zero vector
  | 'empty_vector' // embeddings: `embedding: []`
  | 'slow_first_token' // Responses stream: 300 ms between response.created and the first delta
  | 'refusal'; // chat (JSON): content null, a refusal instead

/** What the provider received. */
export interface WireRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** Reasoning tokens a reasoning model spends per effort on a one-word answer. */
export const THINKING: Record<string, number> = { none: 0, minimal: 16, low: 96, medium: 384, high: 1_500, xhigh: 3_000 };
const REASONING = /^(gpt-5|o1|o3|o4)/;
const ANSWER = ['O', 'K'];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_wire' });
  res.end(JSON.stringify(body));
}

/** Writes the events; with `pauseMs`, waits that long before the first text delta. */
async function sse(res: ServerResponse, events: Array<{ type: string }>, pauseMs = 0): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let paused = false;
  for (const e of events) {
    if (pauseMs > 0 && !paused && e.type === 'response.output_text.delta') {
      paused = true;
      await new Promise((r) => setTimeout(r, pauseMs));
      if (res.destroyed) return;
    }
    res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  }
  res.end();
}

/** Starts the provider on 127.0.0.1, port 0. `baseUrl` ends in `/v1`, as the official client's. */
export async function startWireProvider(opts: { dimension?: number } = {}) {
  const modes = new Map<string, WireMode>();
  const dims = new Map<string, number>();
  const requests: WireRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return send(res, 400, errorEnvelope('We could not parse the JSON body of your request.', 'invalid_request_error', null, null));
      }
      const path = req.url ?? '';
      requests.push({ path, headers: req.headers, body });
      const model = String(body.model);
      const mode = modes.get(model) ?? 'ok';
      if (path === '/v1/chat/completions') return chat(res, model, body, mode);
      if (path === '/v1/responses') return responses(res, model, body, mode);
      if (path === '/v1/embeddings') return embeddings(res, model, body, mode, dims.get(model) ?? opts.dimension ?? 1536);
      send(res, 404, errorEnvelope(`Invalid URL (POST ${path})`, 'invalid_request_error', null, null));
    });
  });

  /** Spends the thinking first, then the answer, out of `budget`. */
  const think = (model: string, effort: unknown, budget: number) => {
    const reasoning = REASONING.test(model) ? (THINKING[String(effort ?? 'medium')] ?? 384) : 0;
    const finished = budget >= reasoning + ANSWER.length;
    return { reasoning: Math.min(reasoning, budget), finished, output: finished ? reasoning + ANSWER.length : budget };
  };

  function chat(res: ServerResponse, model: string, body: Record<string, unknown>, mode: WireMode): void {
    const reasoningModel = REASONING.test(model);
    if (reasoningModel && body.max_tokens !== undefined) {
      return send(res, 400, errorEnvelope("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'invalid_request_error', 'max_tokens', 'unsupported_parameter'));
    }
    if (!reasoningModel && body.reasoning_effort !== undefined) {
      return send(res, 400, errorEnvelope("Unsupported parameter: 'reasoning_effort' is not supported with this model.", 'invalid_request_error', 'reasoning_effort', 'unsupported_parameter'));
    }
    const budget = Number(body.max_completion_tokens ?? body.max_tokens ?? 4096);
    const t = think(model, body.reasoning_effort, budget);
    const text = t.finished ? ANSWER.join('') : '';
    const finish = t.finished ? 'stop' : 'length';
    if (body.stream === true) {
      const chunks = chatChunks(model, t.finished ? ANSWER : [], finish, 12, t.reasoning, t.output);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      return void res.end('data: [DONE]\n\n');
    }
    const answer = chatCompletion(model, text, finish, 12, t.reasoning, t.output);
    if (mode === 'refusal') Object.assign(answer.choices[0]!.message, { content: null, refusal: "I'm sorry, I can't help with that." });
    send(res, 200, answer);
  }

  function responses(res: ServerResponse, model: string, body: Record<string, unknown>, mode: WireMode): void {
    const budget = Number(body.max_output_tokens ?? 4096);
    if (budget < 16) {
      return send(res, 400, errorEnvelope(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${budget} instead.`, 'invalid_request_error', 'max_output_tokens', 'integer_below_min_value'));
    }
    const effort = (body.reasoning as { effort?: unknown } | undefined)?.effort;
    const t = think(model, effort, budget);
    const end: ResponseEnd = { status: 'completed', text: ANSWER.join(''), reasoningTokens: t.reasoning, outputTokens: t.output, inputTokens: 12 };
    if (!t.finished || mode === 'incomplete') Object.assign(end, { status: 'incomplete', text: '', incompleteReason: 'max_output_tokens' });
    if (mode === 'content_filter') Object.assign(end, { status: 'incomplete', text: 'O', incompleteReason: 'content_filter' });
    if (mode === 'failed') Object.assign(end, { status: 'failed', text: '', outputTokens: 0, error: { code: 'server_error', message: 'The model failed to generate a response.' } });
    if (mode === 'no_text') end.text = '';
    if (body.stream !== true) {
      const obj = responseObject(`resp_${Date.now()}`, model, body, end, 'msg_wire');
      if (mode === 'no_text') obj.output = [];
      return send(res, 200, obj);
    }
    let events = responseEvents(model, body, end, end.status === 'completed' && end.text ? ANSWER : []);
    if (mode === 'no_text') events = events.filter((e) => !e.type.startsWith('response.output') && !e.type.startsWith('response.content_part'));
    if (mode === 'no_terminal') events = events.slice(0, -1);
    if (mode === 'error_event') {
      const cut = events.findIndex((e) => e.type === 'response.output_text.delta') + 1;
      events = [...events.slice(0, cut), { type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests', param: null, sequence_number: cut }];
    }
    for (const e of events) if (e.type === 'response.completed' && mode === 'no_text') (e.response as { output: unknown[] }).output = [];
    void sse(res, events, mode === 'slow_first_token' ? 300 : 0);
  }

  function embeddings(res: ServerResponse, model: string, body: Record<string, unknown>, mode: WireMode, dimension: number): void {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const dim = typeof body.dimensions === 'number' ? body.dimensions : dimension;
    let vectors = inputs.map((_, i) => Array.from({ length: dim }, (_v, j) => Math.sin(i + j + 1) / 10));
    if (mode === 'short') vectors = vectors.slice(1);
    if (mode === 'zeros') vectors[0] = vectors[0]!.map(() => 0);
    if (mode === 'empty_vector') vectors[0] = [];
    const list: Record<string, unknown> = embeddingsList(model, vectors, String(body.encoding_format ?? 'float'), 3 * inputs.length);
    if (mode === 'no_data') delete list.data;
    send(res, 200, list);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Scripts `model`'s behaviour until changed. */
    mode(model: string, mode: WireMode): void {
      modes.set(model, mode);
    },
    /** The dimension `model` answers with (unless the request asks for `dimensions`). */
    dimension(model: string, dim: number): void {
      dims.set(model, dim);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type WireProvider = Awaited<ReturnType<typeof startWireProvider>>;

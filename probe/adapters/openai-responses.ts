/**
 * `openai-responses`: OpenAI's Responses API, `POST /responses` (the official client's
 * `client.responses.create`). `base_url` includes the version: `https://api.openai.com/v1`.
 *
 * A probe is ok only when the response is `completed` with output text. Streamed, the
 * stream must end with the `response.completed` event (there is no `[DONE]`), and the first
 * token is the first `response.output_text.delta`. `incomplete` is `truncated` (or `policy`
 * for `content_filter`); `failed` and `error` events are classified by the taxonomy.
 * Event and field names are those of `openai/resources/responses/responses.d.ts`.
 */
import { classifyErrorBody, classifyFinishReason, type ErrorClass, type SseEvent } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import { count, estimateChatTokens, isObject, malformed, openAiJsonPost, parseChatRequest, tryJson, type ChatRequest } from './chat-request.ts';
import { budgetFor, readReasoning, type ReasoningChoice } from './reasoning.ts';
import { openAiBaseUrlProblem } from './base-url.ts';
import type { Answer, AnswerToolCall, OutgoingRequest, ParseContext, ProbeAdapter, Served, ShapeVerdict, StreamChecker, StreamStep, Usage } from './types.ts';
import type { Canary } from '../canary-config.ts';

type ResponsesRequest = ChatRequest & ReasoningChoice;

/** The Responses API refuses `max_output_tokens` below 16. */
const MIN_OUTPUT_TOKENS = 16;

function usageOf(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const input = count(value.input_tokens);
  const output = count(value.output_tokens); // reasoning tokens are part of output_tokens
  return input === undefined || output === undefined ? undefined : { inputTokens: input, outputTokens: output };
}

/** The text, refusals and function calls of a response's `output` items. */
function outputOf(response: Record<string, unknown>): { text: string; refused: boolean; calls: AnswerToolCall[] } {
  let text = '';
  let refused = false;
  const calls: AnswerToolCall[] = [];
  const items = Array.isArray(response.output) ? response.output : [];
  for (const item of items) {
    if (isObject(item) && item.type === 'function_call' && typeof item.name === 'string') {
      const raw = item.arguments;
      calls.push({ name: item.name, arguments: typeof raw === 'string' ? (tryJson(raw) ?? raw) : raw });
    }
    if (!isObject(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (!isObject(part)) continue;
      if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
      if (part.type === 'refusal') refused = true;
    }
  }
  return { text, refused, calls };
}

/**
 * The Responses fields a canary adds (`openai` ResponseCreateParams; the API takes no seed):
 * temperature 0 except on reasoning models; a JSON-schema `text.format` (not strict, as on
 * chat); or one function forced by `tool_choice`.
 */
function canaryFields(canary: Canary, reasoning: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = reasoning ? {} : { temperature: 0 };
  const e = canary.expect;
  if (e.kind === 'json_schema') out.text = { format: { type: 'json_schema', name: 'canary', schema: e.schema, strict: false } };
  if (e.kind === 'tool_call') {
    out.tools = [{ type: 'function', name: e.name, description: 'The canary task\'s answer.', parameters: e.parameters, strict: false }];
    out.tool_choice = { type: 'function', name: e.name };
  }
  return out;
}

/**
 * A `response.error` (`{code, message}`) or an `error` event (flat `{code, message, param}`
 * in the client's types; some gateways nest it under `error`), on the taxonomy.
 */
function errorClassOf(error: unknown): ErrorClass {
  if (!isObject(error)) return 'server';
  return classifyErrorBody(isObject(error.error) ? error : { error }) ?? 'server';
}

/**
 * The verdict on a finished `Response` object (the non-streamed body, or the `response`
 * of a terminal event). `streamedText` counts text seen in deltas, for providers that
 * send the terminal event without repeating the output.
 */
function verdictOf(response: Record<string, unknown>, streamedText = ''): ShapeVerdict {
  const usage = usageOf(response.usage);
  const u = usage ? { usage } : {};
  switch (response.status) {
    case 'completed': {
      const { text, refused, calls } = outputOf(response);
      // A function call is an answer too (a forced tool: no text at all).
      if (text.length > 0 || streamedText.length > 0 || calls.length > 0) return { ok: true, ...u };
      if (refused) return { ok: false, errorClass: 'policy', reason: 'the model refused', ...u };
      return malformed(response, 'completed without output text', usage);
    }
    case 'incomplete': {
      const details = response.incomplete_details;
      const why = isObject(details) && typeof details.reason === 'string' ? details.reason : 'max_output_tokens';
      return { ok: false, errorClass: classifyFinishReason(why) ?? 'truncated', reason: `incomplete: ${why}`, ...u };
    }
    case 'failed': {
      const e = isObject(response.error) ? response.error : undefined;
      const detail = e && typeof e.code === 'string' ? `: ${e.code}` : '';
      return { ok: false, errorClass: errorClassOf(e), reason: `response failed${detail}`, ...u };
    }
    default:
      return malformed(response, `status is ${JSON.stringify(response.status ?? null)}, not completed`, usage);
  }
}

class ResponsesStreamChecker implements StreamChecker {
  private started = false;
  private sawToken = false;
  private text = '';
  private terminal: ShapeVerdict | undefined;
  private model: string | undefined;

  served(): Served | undefined {
    return this.model ? { model: this.model } : undefined;
  }

  onEvent(ev: SseEvent): StreamStep {
    if (this.terminal) return {};
    const data = tryJson(ev.data);
    if (!isObject(data) || typeof data.type !== 'string') {
      return { failure: { errorClass: 'stream_broken', reason: `malformed ${ev.event} event` } };
    }
    switch (data.type) {
      case 'error': {
        const detail = typeof data.code === 'string' ? `: ${data.code}` : '';
        return { failure: { errorClass: errorClassOf(data), reason: `error event in stream${detail}` } };
      }
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        this.started = true;
        if (isObject(data.response) && typeof data.response.model === 'string' && data.response.model) this.model = data.response.model;
        return {};
      case 'response.output_text.delta': {
        if (typeof data.delta !== 'string') return { failure: { errorClass: 'stream_broken', reason: 'malformed output_text delta' } };
        this.text += data.delta;
        if (data.delta.length > 0 && !this.sawToken) {
          this.sawToken = true;
          return { firstToken: true };
        }
        return {};
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        if (!isObject(data.response)) return { failure: { errorClass: 'stream_broken', reason: `${data.type} without a response` } };
        this.terminal = verdictOf(data.response, this.text);
        return {};
      }
      default:
        return {}; // reasoning, content parts, tool calls and event types added later
    }
  }

  end(): ShapeVerdict {
    if (this.terminal) return this.terminal;
    const reason = this.started ? 'stream ended without response.completed' : 'stream ended before response.created';
    return { ok: false, errorClass: 'stream_broken', reason };
  }
}

/** The `openai-responses` kind. */
export const openAiResponses: ProbeAdapter<ResponsesRequest> = {
  kind: 'openai-responses',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): ResponsesRequest | undefined {
    const reasoning = readReasoning(r, typeof r.obj.model === 'string' ? r.obj.model : ctx.key.model);
    const chat = parseChatRequest(r, ctx, '/responses', ['reasoning', 'reasoning_effort'], budgetFor(reasoning, MIN_OUTPUT_TOKENS));
    return chat && { ...chat, ...reasoning };
  },

  streamed: (req) => req.stream,
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem: (url, req) => openAiBaseUrlProblem(url, req.path),

  buildRequest(baseUrl: URL, req: ResponsesRequest, apiKey: string | undefined, canary?: Canary): OutgoingRequest {
    const body: Record<string, unknown> = {
      model: req.model,
      input: req.prompt,
      max_output_tokens: req.maxTokens,
      stream: req.stream,
      // A probe leaves nothing behind on the provider (the API stores responses by default).
      store: false,
      ...(req.system ? { instructions: req.system } : {}),
      ...(req.reasoning ? { reasoning: { effort: req.effort } } : {}),
      ...(canary ? canaryFields(canary, req.reasoning) : {}),
    };
    return openAiJsonPost(baseUrl, req.path, body, req.stream, apiKey);
  },

  checkBody(_req: ResponsesRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    if (body.object !== 'response') return malformed(body, 'object is not "response"', usageOf(body.usage));
    const verdict = verdictOf(body);
    if (verdict.ok && !verdict.usage) return malformed(body, 'no usage');
    return verdict;
  },

  readAnswer(_req: ResponsesRequest, text: string): Answer | undefined {
    const body = tryJson(text);
    if (!isObject(body)) return undefined;
    const { text: answer, calls } = outputOf(body);
    return { text: answer, toolCalls: calls, ...(typeof body.model === 'string' && body.model ? { servedModel: body.model } : {}) };
  },

  createStreamChecker: () => new ResponsesStreamChecker(),
};

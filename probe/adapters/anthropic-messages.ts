/**
 * `anthropic-messages`: Anthropic's `POST /v1/messages`. `base_url` is the host, as in
 * the official client: `https://api.anthropic.com`. `thinking_budget` turns extended
 * thinking on (`thinking: {type: "enabled", budget_tokens}`).
 *
 * The first token is the first piece of the answer — a non-empty `text_delta` or
 * `input_json_delta` — never a `thinking_delta` or `signature_delta` (nor a
 * `redacted_thinking` block or a `citations_delta`): a caller waits for the answer, and
 * the thinking before it is part of that wait, as a reasoning model's hidden tokens are
 * on the OpenAI kinds.
 */
import { classifyErrorBody } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import type { SseEvent } from '@breakerbox/protocol';
import {
  count,
  endVerdict,
  estimateChatTokens,
  isObject,
  joinUrl,
  malformed,
  parseChatRequest,
  tryJson,
  type ChatRequest,
} from './chat-request.ts';
import { anthropicBaseUrlProblem } from './base-url.ts';
import type { Answer, Served, OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, StreamStep, Usage } from './types.ts';
import type { Canary } from '../canary-config.ts';

/**
 * The Messages fields a canary adds (`@anthropic-ai/sdk` MessageCreateParams): temperature 0
 * (not with extended thinking, which requires 1; the API takes no seed); a JSON-schema
 * `output_config.format` (structured outputs); or one tool forced by `tool_choice`.
 */
function canaryFields(canary: Canary, thinking: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = thinking ? {} : { temperature: 0 };
  const e = canary.expect;
  if (e.kind === 'json_schema') out.output_config = { format: { type: 'json_schema', schema: e.schema } };
  if (e.kind === 'tool_call') {
    out.tools = [{ name: e.name, description: 'The canary task\'s answer.', input_schema: e.parameters }];
    out.tool_choice = { type: 'tool', name: e.name };
  }
  return out;
}

interface AnthropicRequest extends ChatRequest {
  version: string;
  /** `budget_tokens` of extended thinking; off when undefined. */
  thinkingBudget: number | undefined;
}

/** The API's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1_024;
/** What a thinking probe gets by default on top of its budget, for the answer itself. */
const ANSWER_ROOM = 64;

/** The answer's piece in a `content_block_delta`, or undefined for thinking, signatures and citations. */
function answerPiece(delta: unknown): string | undefined {
  if (!isObject(delta)) return undefined;
  if (delta.type === 'text_delta') return typeof delta.text === 'string' ? delta.text : undefined;
  if (delta.type === 'input_json_delta') return typeof delta.partial_json === 'string' ? delta.partial_json : undefined;
  return undefined;
}


class AnthropicStreamChecker implements StreamChecker {
  private started = false;
  private stopped = false;
  private sawToken = false;
  private stop: string | undefined;
  private inputTokens: number | undefined;
  private outputTokens: number | undefined;
  private model: string | undefined;

  served(): Served | undefined {
    return this.model ? { model: this.model } : undefined;
  }

  private usage(): Usage | undefined {
    if (this.inputTokens === undefined && this.outputTokens === undefined) return undefined;
    return { inputTokens: this.inputTokens ?? 0, outputTokens: this.outputTokens ?? 0 };
  }

  onEvent(ev: SseEvent): StreamStep {
    const data = tryJson(ev.data);
    if (!isObject(data) || typeof data.type !== 'string') {
      return { failure: { errorClass: 'stream_broken', reason: `malformed ${ev.event} event` } };
    }
    switch (data.type) {
      case 'error':
        return { failure: { errorClass: classifyErrorBody(data) ?? 'server', reason: 'error event in stream' } };
      case 'message_start': {
        this.started = true;
        const msg = data.message;
        if (isObject(msg) && isObject(msg.usage)) this.inputTokens = count(msg.usage.input_tokens);
        if (isObject(msg) && typeof msg.model === 'string' && msg.model) this.model = msg.model;
        return {};
      }
      case 'content_block_delta': {
        const text = answerPiece(data.delta);
        if (text !== undefined && text.length > 0 && !this.sawToken) {
          this.sawToken = true;
          return { firstToken: true };
        }
        return {};
      }
      case 'message_delta': {
        if (isObject(data.delta) && typeof data.delta.stop_reason === 'string') this.stop = data.delta.stop_reason;
        if (isObject(data.usage)) this.outputTokens = count(data.usage.output_tokens) ?? this.outputTokens;
        return {};
      }
      case 'message_stop':
        this.stopped = true;
        return {};
      default:
        return {}; // ping, content_block_start/stop, and event types added later
    }
  }

  end(): ShapeVerdict {
    const usage = this.usage();
    const u = usage ? { usage } : {};
    if (!this.started) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without message_start', ...u };
    if (!this.stopped) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without message_stop', ...u };
    if (this.stop === undefined) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without a stop_reason', ...u };
    return endVerdict('stop_reason', this.stop, usage);
  }
}

/** The `anthropic-messages` kind. */
export const anthropicMessages: ProbeAdapter<AnthropicRequest> = {
  kind: 'anthropic-messages',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): AnthropicRequest | undefined {
    const thinkingBudget = r.number('thinking_budget', { integer: true, min: MIN_THINKING_BUDGET, max: 32_000 });
    const budget = thinkingBudget === undefined ? {} : { defaultFor: () => thinkingBudget + ANSWER_ROOM };
    const chat = parseChatRequest(r, ctx, '/v1/messages', ['anthropic_version', 'thinking_budget'], budget);
    const version = r.string('anthropic_version', { pattern: /^\d{4}-\d{2}-\d{2}$/, hint: 'must be a date like 2023-06-01' });
    if (chat && thinkingBudget !== undefined && chat.maxTokens <= thinkingBudget) {
      r.problem('thinking_budget', `must be below max_tokens (${chat.maxTokens}), which counts the thinking too, or the API refuses the request`);
    }
    return chat && { ...chat, version: version ?? '2023-06-01', thinkingBudget };
  },

  streamed: (req) => req.stream,
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem: (url, req) => anthropicBaseUrlProblem(url, req.path),

  buildRequest(baseUrl: URL, req: AnthropicRequest, apiKey: string | undefined, canary?: Canary): OutgoingRequest {
    const body: Record<string, unknown> = {
      model: req.model,
      max_tokens: req.maxTokens,
      messages: [{ role: 'user', content: req.prompt }],
      stream: req.stream,
      ...(req.system ? { system: req.system } : {}),
      ...(req.thinkingBudget !== undefined ? { thinking: { type: 'enabled', budget_tokens: req.thinkingBudget } } : {}),
      ...(canary ? canaryFields(canary, req.thinkingBudget !== undefined) : {}),
    };
    return {
      url: joinUrl(baseUrl, req.path),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: req.stream ? 'text/event-stream' : 'application/json',
        'anthropic-version': req.version,
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
      },
      body: JSON.stringify(body),
    };
  },

  checkBody(_req: AnthropicRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    if (body.type !== 'message') return malformed(body, 'type is not "message"');
    const u = isObject(body.usage) ? body.usage : undefined;
    const input = u ? count(u.input_tokens) : undefined;
    const output = u ? count(u.output_tokens) : undefined;
    const usage = input !== undefined && output !== undefined ? { inputTokens: input, outputTokens: output } : undefined;
    if (!Array.isArray(body.content)) return malformed(body, 'no content list', usage);
    if (typeof body.stop_reason !== 'string') return malformed(body, 'no stop_reason', usage);
    const stop = endVerdict('stop_reason', body.stop_reason, usage);
    if (!stop.ok) return stop;
    if (!body.content.every((block: unknown) => isObject(block) && typeof block.type === 'string')) {
      return malformed(body, 'a content block has no type', usage);
    }
    if (!usage) return malformed(body, 'no usage', usage);
    return stop;
  },

  readAnswer(_req: AnthropicRequest, text: string): Answer | undefined {
    const body = tryJson(text);
    if (!isObject(body) || !Array.isArray(body.content)) return undefined;
    const blocks = body.content.filter(isObject);
    return {
      text: blocks.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join(''),
      toolCalls: blocks.flatMap((b) => (b.type === 'tool_use' && typeof b.name === 'string' ? [{ name: b.name, arguments: b.input }] : [])),
      ...(typeof body.model === 'string' && body.model ? { servedModel: body.model } : {}),
    };
  },

  createStreamChecker: () => new AnthropicStreamChecker(),
};

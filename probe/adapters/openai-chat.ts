/**
 * `openai-chat`: OpenAI's `POST /chat/completions` and every compatible endpoint
 * (Together, Groq, vLLM, gateways). `base_url` includes the version, as in the
 * official client: `https://api.openai.com/v1`.
 */
import { classifyErrorBody } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import type { SseEvent } from '@breakerbox/protocol';
import {
  count,
  endVerdict,
  estimateChatTokens,
  isObject,
  openAiJsonPost,
  malformed,
  parseChatRequest,
  tryJson,
  type ChatRequest,
} from './chat-request.ts';
import { budgetFor, readReasoning, type ReasoningChoice } from './reasoning.ts';
import { openAiBaseUrlProblem } from './base-url.ts';
import type { Answer, Served, OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, StreamStep, Usage } from './types.ts';
import type { Canary } from '../canary-config.ts';

interface OpenAiChatRequest extends ChatRequest, ReasoningChoice {
  /** Ask for the usage chunk at the end of a stream (`stream_options.include_usage`). */
  includeUsage: boolean;
}



function usageOf(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const input = count(value.prompt_tokens);
  const output = count(value.completion_tokens);
  return input === undefined || output === undefined ? undefined : { inputTokens: input, outputTokens: output };
}


/**
 * The chat fields a canary adds (`openai` ChatCompletionCreateParams): temperature 0 and a
 * seed, except on reasoning models, which refuse a temperature; a JSON-schema
 * `response_format` (not strict: constrained decoding would hide the broken JSON the canary
 * is there to see); or one function, forced by `tool_choice`.
 */
function canaryFields(canary: Canary, reasoning: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = reasoning ? { seed: canary.seed } : { temperature: 0, seed: canary.seed };
  const e = canary.expect;
  if (e.kind === 'json_schema') out.response_format = { type: 'json_schema', json_schema: { name: 'canary', schema: e.schema, strict: false } };
  if (e.kind === 'tool_call') {
    out.tools = [{ type: 'function', function: { name: e.name, description: 'The canary task\'s answer.', parameters: e.parameters } }];
    out.tool_choice = { type: 'function', function: { name: e.name } };
  }
  return out;
}

/** `model` and `system_fingerprint` of a completion or a chunk, when non-empty strings. */
function servedOf(model: unknown, fingerprint: unknown): Served | undefined {
  const m = typeof model === 'string' && model ? { model } : {};
  const f = typeof fingerprint === 'string' && fingerprint ? { fingerprint } : {};
  return m.model || f.fingerprint ? { ...m, ...f } : undefined;
}

class OpenAiStreamChecker implements StreamChecker {
  private done = false;
  private sawChunk = false;
  private sawToken = false;
  /** A `delta.refusal` came instead of content: the stream ends `stop`, but the model refused. */
  private refused = false;
  private finish: string | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;
  private fingerprint: string | undefined;

  served(): Served | undefined {
    return servedOf(this.model, this.fingerprint);
  }

  onEvent(ev: SseEvent): StreamStep {
    if (this.done) return {};
    if (ev.data.trim() === '[DONE]') {
      this.done = true;
      return {};
    }
    const chunk = tryJson(ev.data);
    if (!isObject(chunk)) return { failure: { errorClass: 'stream_broken', reason: 'malformed chunk (not a JSON object)' } };
    if (chunk.error !== undefined) {
      return { failure: { errorClass: classifyErrorBody(chunk) ?? 'server', reason: 'error event in stream' } };
    }
    if (!Array.isArray(chunk.choices)) return { failure: { errorClass: 'stream_broken', reason: 'malformed chunk (no choices)' } };
    this.sawChunk = true;
    this.usage = usageOf(chunk.usage) ?? this.usage;
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (typeof chunk.system_fingerprint === 'string' && chunk.system_fingerprint) this.fingerprint = chunk.system_fingerprint;
    const choice: unknown = chunk.choices[0];
    if (choice === undefined) return {}; // the usage chunk has no choices
    if (!isObject(choice) || !isObject(choice.delta)) {
      return { failure: { errorClass: 'stream_broken', reason: 'malformed chunk (choice without delta)' } };
    }
    if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    if (typeof choice.delta.refusal === 'string' && choice.delta.refusal.length > 0) this.refused = true;
    const content = choice.delta.content;
    if (typeof content === 'string' && content.length > 0 && !this.sawToken) {
      this.sawToken = true;
      return { firstToken: true };
    }
    return {};
  }

  end(): ShapeVerdict {
    const usage = this.usage ? { usage: this.usage } : {};
    if (!this.sawChunk) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended before any chunk', ...usage };
    if (!this.done) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without [DONE]', ...usage };
    if (this.finish === undefined) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without a finish_reason', ...usage };
    const finish = endVerdict('finish_reason', this.finish, this.usage);
    if (finish.ok && this.refused) return { ok: false, errorClass: 'policy', reason: 'the model refused', ...usage };
    return finish;
  }
}

/** The `openai-chat` kind. */
export const openAiChat: ProbeAdapter<OpenAiChatRequest> = {
  kind: 'openai-chat',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): OpenAiChatRequest | undefined {
    const extra = ['include_usage', 'reasoning', 'reasoning_effort'];
    const reasoning = readReasoning(r, typeof r.obj.model === 'string' ? r.obj.model : ctx.key.model);
    const chat = parseChatRequest(r, ctx, '/chat/completions', extra, budgetFor(reasoning));
    const includeUsage = r.boolean('include_usage') ?? true;
    return chat && { ...chat, includeUsage, ...reasoning };
  },

  streamed: (req) => req.stream,
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem: (url, req) => openAiBaseUrlProblem(url, req.path),

  buildRequest(baseUrl: URL, req: OpenAiChatRequest, apiKey: string | undefined, canary?: Canary): OutgoingRequest {
    const messages = [
      ...(req.system ? [{ role: 'system', content: req.system }] : []),
      { role: 'user', content: req.prompt },
    ];
    // Reasoning models refuse `max_tokens` (400 unsupported_parameter) and take an effort.
    const limit = req.reasoning
      ? { max_completion_tokens: req.maxTokens, reasoning_effort: req.effort }
      : { max_tokens: req.maxTokens };
    const body: Record<string, unknown> = { model: req.model, messages, ...limit, stream: req.stream };
    if (req.stream && req.includeUsage) body.stream_options = { include_usage: true };
    if (canary) Object.assign(body, canaryFields(canary, req.reasoning));
    return openAiJsonPost(baseUrl, req.path, body, req.stream, apiKey);
  },

  readAnswer(_req: OpenAiChatRequest, text: string): Answer | undefined {
    const body = tryJson(text);
    const choice: unknown = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isObject(body) || !isObject(choice) || !isObject(choice.message)) return undefined;
    const calls = Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : [];
    const toolCalls = calls.flatMap((c: unknown) => {
      if (!isObject(c) || !isObject(c.function) || typeof c.function.name !== 'string') return [];
      const raw = c.function.arguments;
      return [{ name: c.function.name, arguments: typeof raw === 'string' ? (tryJson(raw) ?? raw) : raw }];
    });
    const served = servedOf(body.model, body.system_fingerprint);
    return {
      text: typeof choice.message.content === 'string' ? choice.message.content : '',
      toolCalls,
      ...(served?.model ? { servedModel: served.model } : {}),
      ...(served?.fingerprint ? { fingerprint: served.fingerprint } : {}),
    };
  },

  checkBody(_req: OpenAiChatRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    const usage = usageOf(body.usage);
    const choice: unknown = Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isObject(choice)) return malformed(body, 'no choices[0]', usage);
    if (!isObject(choice.message)) return malformed(body, 'choices[0] has no message', usage);
    if (typeof choice.finish_reason !== 'string') return malformed(body, 'choices[0] has no finish_reason', usage);
    const finish = endVerdict('finish_reason', choice.finish_reason, usage);
    if (!finish.ok) return finish;
    // A tool call's message holds no text (`content: null`, `tool_calls` set): that is an answer.
    const calls = choice.message.tool_calls;
    if (typeof choice.message.content !== 'string' && !(Array.isArray(calls) && calls.length > 0)) {
      if (typeof choice.message.refusal === 'string') return { ok: false, errorClass: 'policy', reason: 'the model refused', ...(usage ? { usage } : {}) };
      return malformed(body, 'choices[0].message.content is not text', usage);
    }
    if (!usage) return malformed(body, 'no usage', usage);
    return finish;
  },

  createStreamChecker: () => new OpenAiStreamChecker(),
};

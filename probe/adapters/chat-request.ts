/**
 * The `request` block shared by the chat kinds (`openai-chat`, `anthropic-messages`):
 * a model, a short prompt, a small token limit, streamed or not.
 */
import type { FieldReader } from '../config-fields.ts';
import type { OutgoingRequest, ParseContext, ShapeVerdict, Usage } from './types.ts';
import { classifyFinishReason, classifyHttpError } from '@breakerbox/protocol';

/** A resolved chat probe request. */
export interface ChatRequest {
  model: string;
  prompt: string;
  system: string | undefined;
  maxTokens: number;
  stream: boolean;
  /** Path appended to `base_url` (the kind's default unless given). */
  path: string;
}

/** Asks for a one-word answer, so a small `max_tokens` still ends with a normal stop. */
export const DEFAULT_PROMPT = 'Reply with the single word: OK';
export const DEFAULT_MAX_TOKENS = 8;
const CHAT_FIELDS = ['model', 'prompt', 'system', 'max_tokens', 'stream', 'path'] as const;

/** How a kind sizes `max_tokens`: its default (which may depend on the model) and its floor. */
export interface TokenBudget {
  /** The budget when `max_tokens` is not given. */
  defaultFor?: (model: string) => number;
  /** The smallest budget the API accepts (the Responses API refuses fewer than 16). */
  min?: number;
}

/** Reads the shared chat fields; `extra` names kind-specific fields the caller reads itself. */
export function parseChatRequest(
  r: FieldReader,
  ctx: ParseContext,
  defaultPath: string,
  extra: readonly string[] = [],
  budget: TokenBudget = {},
): ChatRequest | undefined {
  r.rejectUnknown([...CHAT_FIELDS, ...extra]);
  const model = r.string('model', { maxLength: 256 }) ?? ctx.key.model;
  const prompt = r.string('prompt', { maxLength: 2_000 }) ?? DEFAULT_PROMPT;
  const system = r.string('system', { maxLength: 2_000 });
  const maxTokens =
    r.number('max_tokens', { integer: true, min: budget.min ?? 1, max: 32_768 }) ?? budget.defaultFor?.(model) ?? DEFAULT_MAX_TOKENS;
  const stream = r.boolean('stream') ?? false;
  const path = r.string('path', { pattern: /^\/\S*$/, hint: 'must start with "/"' }) ?? defaultPath;
  return { model, prompt, system, maxTokens, stream, path };
}

/** About four characters a token, plus the message framing: good enough for a budget. */
export function estimateChatTokens(req: ChatRequest): Usage {
  const chars = req.prompt.length + (req.system?.length ?? 0);
  return { inputTokens: Math.ceil(chars / 4) + 8, outputTokens: req.maxTokens };
}

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url;
}

/** A JSON POST to an OpenAI-style API (chat, Responses, embeddings): bearer key, SSE accepted when streamed. */
export function openAiJsonPost(baseUrl: URL, path: string, body: Record<string, unknown>, stream: boolean, apiKey: string | undefined): OutgoingRequest {
  return {
    url: joinUrl(baseUrl, path),
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify(body),
  };
}

/** Parses JSON, returning undefined instead of throwing. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A 2xx whose body is not the shape the API promises. The class is the SDK
 * classifier's reading of such a body (an error envelope inside a 200 keeps its class).
 */
export function malformed(body: unknown, reason: string, usage?: Usage): ShapeVerdict {
  return { ok: false, errorClass: classifyHttpError(200, body), reason: `malformed answer: ${reason}`, ...(usage ? { usage } : {}) };
}

/** A non-negative integer or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** True for a plain object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The verdict on how an answer ended (`finish_reason` for OpenAI, `stop_reason` for
 * Anthropic): a normal end is ok; `length` / `max_tokens` / content filtering are not.
 */
export function endVerdict(field: 'finish_reason' | 'stop_reason', value: string, usage: Usage | undefined): ShapeVerdict {
  const cls = classifyFinishReason(value);
  if (cls) return { ok: false, errorClass: cls, reason: `${field} ${value}`, ...(usage ? { usage } : {}) };
  return usage ? { ok: true, usage } : { ok: true };
}

/**
 * What one SSE event of a model stream means, for OpenAI-compatible chat completions and
 * Anthropic messages: a content token, the finish reason, usage, the end event, an error
 * event, or nothing of interest. Pure functions over events read by the shared
 * `SseReader` of `@breakerbox/protocol`.
 */
import type { ErrorClass, SseEvent } from '@breakerbox/protocol';
import { classifyErrorBody } from '@breakerbox/protocol';

/** The stream dialects the guard understands. */
export type StreamDialect = 'openai' | 'anthropic';

/** The meaning of one frame. */
export interface FrameInfo {
  malformed: boolean;
  token: boolean;
  end: boolean;
  finishReason?: string;
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  /** A mid-stream error event, classified. */
  error?: { cls: ErrorClass; message: string };
}

const NOTHING: FrameInfo = Object.freeze({ malformed: false, token: false, end: false });

/**
 * The event name an Anthropic-style handler keys on: the `event:` field, or the JSON
 * body's `type` when the stream gave no event name (the reader reports `message`).
 */
export function eventName(e: SseEvent, body: Record<string, unknown>): string {
  return e.event === 'message' ? String(body.type ?? '') : e.event;
}

/** Interprets one event (from the shared `SseReader`) of the given dialect. */
export function interpretFrame(dialect: StreamDialect, e: SseEvent): FrameInfo {
  const { data } = e;
  if (dialect === 'openai' && data.trim() === '[DONE]') return { malformed: false, token: false, end: true };
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return { malformed: true, token: false, end: false };
  }
  if (!obj || typeof obj !== 'object') return { malformed: true, token: false, end: false };
  return dialect === 'openai' ? openaiFrame(obj) : anthropicFrame(eventName(e, obj), obj);
}

function openaiFrame(o: Record<string, unknown>): FrameInfo {
  if (o.error) return { malformed: false, token: false, end: false, error: errorOf(o) };
  const info: FrameInfo = { malformed: false, token: false, end: false };
  const choice = Array.isArray(o.choices) ? (o.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (choice) {
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (delta && ((typeof delta.content === 'string' && delta.content.length > 0) || delta.tool_calls || delta.refusal)) info.token = true;
    if (typeof choice.finish_reason === 'string') info.finishReason = choice.finish_reason;
  }
  const u = o.usage as Record<string, unknown> | null | undefined;
  if (u && typeof u === 'object') {
    if (typeof u.prompt_tokens === 'number') info.inputTokens = u.prompt_tokens;
    if (typeof u.completion_tokens === 'number') info.outputTokens = u.completion_tokens;
    const details = u.prompt_tokens_details as { cached_tokens?: unknown } | undefined;
    if (typeof details?.cached_tokens === 'number') info.cachedTokens = details.cached_tokens;
  }
  return info;
}

function anthropicFrame(type: string, o: Record<string, unknown>): FrameInfo {
  switch (type) {
    case 'content_block_delta':
      return { malformed: false, token: true, end: false };
    case 'message_start': {
      const u = (o.message as { usage?: Record<string, unknown> } | undefined)?.usage;
      const info: FrameInfo = { malformed: false, token: false, end: false };
      if (typeof u?.input_tokens === 'number') info.inputTokens = u.input_tokens;
      if (typeof u?.cache_read_input_tokens === 'number') info.cachedTokens = u.cache_read_input_tokens;
      return info;
    }
    case 'message_delta': {
      const info: FrameInfo = { malformed: false, token: false, end: false };
      const d = o.delta as { stop_reason?: unknown } | undefined;
      if (typeof d?.stop_reason === 'string') info.finishReason = d.stop_reason;
      const u = o.usage as { output_tokens?: unknown } | undefined;
      if (typeof u?.output_tokens === 'number') info.outputTokens = u.output_tokens;
      return info;
    }
    case 'message_stop':
      return { malformed: false, token: false, end: true };
    case 'error':
      return { malformed: false, token: false, end: false, error: errorOf(o) };
    default:
      return NOTHING;
  }
}

function errorOf(o: Record<string, unknown>): { cls: ErrorClass; message: string } {
  const e = o.error as { message?: unknown } | undefined;
  return { cls: classifyErrorBody(o) ?? 'server', message: typeof e?.message === 'string' ? e.message : 'error event in stream' };
}

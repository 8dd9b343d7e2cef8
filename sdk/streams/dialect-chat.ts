/**
 * The stream dialect of OpenAI-compatible chat completions (`chat.completion.chunk`
 * events, `choices[].delta`, a `finish_reason`, usage with `stream_options.include_usage`,
 * then `data: [DONE]`). Tool-call argument deltas are tokens for the guard (a stream cut
 * inside them has no finish and is broken), and opaque to rescue: a regeneration would
 * send a second call with a new id, so a stream that delivered arguments is never rescued.
 */
import type { SseEvent } from '@breakerbox/protocol';
import { HEAD, MALFORMED, OPAQUE, TAIL, errorOf, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';

function interpret(e: SseEvent): FrameInfo {
  if (e.data.trim() === '[DONE]') return { malformed: false, token: false, end: true };
  const o = jsonOf(e);
  if (!o) return MALFORMED;
  if (o.error) return { malformed: false, token: false, end: false, error: errorOf(o) };
  const info: FrameInfo = { malformed: false, token: false, end: false };
  const choice = Array.isArray(o.choices) ? (o.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (choice) {
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (delta && ((typeof delta.content === 'string' && delta.content.length > 0) || delta.tool_calls || delta.refusal || delta.function_call)) info.token = true;
    if (typeof choice.finish_reason === 'string') info.finishReason = choice.finish_reason;
  }
  const u = o.usage as Record<string, unknown> | null | undefined;
  if (u && typeof u === 'object') {
    if (typeof u.prompt_tokens === 'number') info.inputTokens = u.prompt_tokens;
    if (typeof u.completion_tokens === 'number') info.outputTokens = u.completion_tokens;
    const details = u.prompt_tokens_details as { cached_tokens?: unknown } | undefined;
    if (typeof details?.cached_tokens === 'number') info.cachedTokens = details.cached_tokens;
    const out = u.completion_tokens_details as { reasoning_tokens?: unknown } | undefined;
    if (typeof out?.reasoning_tokens === 'number') info.reasoningTokens = out.reasoning_tokens;
  }
  return info;
}

function text(e: SseEvent): FrameText {
  if (e.data.trim() === '[DONE]') return TAIL;
  const o = jsonOf(e);
  if (!o) return OPAQUE;
  const choices = o.choices;
  if (!Array.isArray(choices) || choices.length === 0) return TAIL; // the usage chunk
  if (choices.length > 1) return OPAQUE;
  const c = choices[0] as Record<string, unknown>;
  if ((c.index ?? 0) !== 0) return OPAQUE;
  const d = (c.delta ?? {}) as Record<string, unknown>;
  if (d.tool_calls || d.function_call || (typeof d.refusal === 'string' && d.refusal.length > 0)) return OPAQUE;
  if (typeof d.content === 'string' && d.content.length > 0) return typeof c.finish_reason === 'string' ? { kind: 'text', text: d.content, final: true } : { kind: 'text', text: d.content };
  return typeof c.finish_reason === 'string' ? TAIL : HEAD;
}

/** OpenAI-compatible chat completions (also legacy completions-style streams of the same family). */
export const chatDialect: StreamDialect = {
  family: 'chat',
  endEvent: '[DONE]',
  interpret,
  textReader: () => text,
  withText(e, t) {
    const o = JSON.parse(e.data) as { choices: Array<{ delta: { content: string } }> };
    o.choices[0]!.delta.content = t;
    return { event: e.event, data: JSON.stringify(o) };
  },
  usageBeforeEnd: (body) => (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
};

/**
 * Assistant prefill for mid-stream continuation: the request again, with what the caller
 * already received as the start of the assistant's turn, so the model carries on from
 * there. Only the Anthropic Messages dialect defines prefill; OpenAI-compatible chat
 * completions read a trailing assistant message as history, not as a turn to continue.
 */
import type { StreamDialect } from '../streams/stream-dialect.ts';

/** The dialects whose API continues a prefilled assistant turn. */
export function supportsPrefill(dialect: StreamDialect): boolean {
  return dialect.family === 'messages';
}

/**
 * `body` with `text` prefilled as the assistant's turn (appended to the caller's own
 * prefill, if the request ends with one), or undefined when the request cannot take it:
 * extended thinking is on, or the last message has structured content.
 */
export function prefilledBody(dialect: StreamDialect, body: Record<string, unknown>, text: string): Record<string, unknown> | undefined {
  if (!supportsPrefill(dialect) || !text) return undefined;
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  if (body.thinking && (body.thinking as { type?: unknown }).type !== 'disabled') return undefined;
  const last = messages[messages.length - 1] as { role?: unknown; content?: unknown };
  if (last.role === 'assistant') {
    if (typeof last.content !== 'string') return undefined;
    return { ...body, messages: [...messages.slice(0, -1), { role: 'assistant', content: last.content + text }] };
  }
  return { ...body, messages: [...messages, { role: 'assistant', content: text }] };
}

/**
 * The visible text of one SSE frame, for mid-stream rescue: what a frame adds to the
 * answer the caller is reading, and the same frame with its text replaced (to forward
 * only the part of a regenerated answer that goes past what was already delivered).
 *
 * Only single-choice text answers can be rescued; a frame carrying anything else the
 * caller would have to reconcile (tool calls, a second choice, thinking, JSON deltas) is
 * reported as `opaque`. Works on events read by the shared `SseReader`.
 */
import type { SseEvent } from '@breakerbox/protocol';
import { eventName, type StreamDialect } from './sse-frames.ts';

/** What a frame means for the text of the answer. */
export type FrameText =
  /** A content delta: `text` is what it adds; `final` when the same frame carries the finish. */
  | { kind: 'text'; text: string; final?: boolean }
  /** Frames before the first content: role chunk, `message_start`, `content_block_start`, pings. */
  | { kind: 'head' }
  /** Finish reason, usage, block stop, end event: the answer's tail. */
  | { kind: 'tail' }
  /** Content rescue cannot reproduce or check (tool calls, other choices, non-text deltas). */
  | { kind: 'opaque' };

const HEAD: FrameText = { kind: 'head' };
const TAIL: FrameText = { kind: 'tail' };
const OPAQUE: FrameText = { kind: 'opaque' };

/** Reads what event `e` adds to the answer. */
export function frameText(dialect: StreamDialect, e: SseEvent): FrameText {
  const { data } = e;
  if (dialect === 'openai' && data.trim() === '[DONE]') return TAIL;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return OPAQUE;
  }
  if (!o || typeof o !== 'object') return OPAQUE;
  return dialect === 'openai' ? openaiText(o) : anthropicText(eventName(e, o), o);
}

function openaiText(o: Record<string, unknown>): FrameText {
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

function anthropicText(type: string, o: Record<string, unknown>): FrameText {
  switch (type) {
    case 'message_start':
    case 'ping':
      return HEAD;
    case 'content_block_start': {
      const b = o.content_block as { type?: unknown } | undefined;
      return o.index === 0 && b?.type === 'text' ? HEAD : OPAQUE;
    }
    case 'content_block_delta': {
      const d = o.delta as { type?: unknown; text?: unknown } | undefined;
      return o.index === 0 && d?.type === 'text_delta' && typeof d.text === 'string' ? { kind: 'text', text: d.text } : OPAQUE;
    }
    default:
      return TAIL; // content_block_stop, message_delta, message_stop, unknown events
  }
}

/** Event `e` with its content text replaced by `text` (events `frameText` read as `text`). */
export function withText(dialect: StreamDialect, e: SseEvent, text: string): SseEvent {
  const o = JSON.parse(e.data) as Record<string, unknown>;
  if (dialect === 'openai') ((o.choices as Array<{ delta: { content: string } }>)[0]!.delta).content = text;
  else (o.delta as { text: string }).text = text;
  return { event: e.event, data: JSON.stringify(o) };
}

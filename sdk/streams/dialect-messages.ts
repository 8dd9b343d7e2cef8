/**
 * The stream dialect of Anthropic messages: `message_start`, content blocks (`text`,
 * `thinking` / `redacted_thinking`, `tool_use`) opened, filled by `content_block_delta`
 * (`text_delta`, `thinking_delta`, `signature_delta`, `input_json_delta`) and closed,
 * `message_delta` with the stop reason and usage, then `message_stop`; `error` events.
 *
 * For rescue, a finished thinking block is reasoning the caller keeps (a regeneration's
 * own thinking is dropped); a break inside one, or after a `tool_use` block started, is
 * not rescued.
 */
import type { SseEvent } from '@breakerbox/protocol';
import { HEAD, MALFORMED, NOTHING, OPAQUE, TAIL, errorOf, eventName, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';

function interpret(e: SseEvent): FrameInfo {
  const o = jsonOf(e);
  if (!o) return MALFORMED;
  switch (eventName(e, o)) {
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

const THINKING = new Set(['thinking', 'redacted_thinking']);

function textReader() {
  const blocks = new Map<number, string>();
  let textBlock: number | undefined;
  return (e: SseEvent): FrameText => {
    const o = jsonOf(e);
    if (!o) return OPAQUE;
    const index = typeof o.index === 'number' ? o.index : -1;
    switch (eventName(e, o)) {
      case 'message_start':
      case 'ping':
        return HEAD;
      case 'content_block_start': {
        const type = String((o.content_block as { type?: unknown } | undefined)?.type ?? '');
        blocks.set(index, type);
        if (THINKING.has(type)) return { kind: 'aside', open: true };
        if (type === 'text' && textBlock === undefined) {
          textBlock = index;
          return HEAD;
        }
        return OPAQUE;
      }
      case 'content_block_delta': {
        const d = o.delta as { type?: unknown; text?: unknown } | undefined;
        // A text delta of a block whose start was not seen (a stream joined late) is read as the text block too.
        if (textBlock === undefined && !blocks.has(index)) textBlock = index;
        if (index === textBlock && d?.type === 'text_delta' && typeof d.text === 'string') return { kind: 'text', text: d.text };
        return THINKING.has(blocks.get(index) ?? '') ? { kind: 'aside', open: true } : OPAQUE;
      }
      case 'content_block_stop':
        return THINKING.has(blocks.get(index) ?? '') ? { kind: 'aside', open: false } : TAIL;
      default:
        return TAIL; // message_delta, message_stop, unknown events
    }
  };
}

/** Anthropic messages. */
export const messagesDialect: StreamDialect = {
  family: 'messages',
  endEvent: 'message_stop',
  interpret,
  textReader,
  withText(e, t) {
    const o = JSON.parse(e.data) as { delta: { text: string } };
    o.delta.text = t;
    return { event: e.event, data: JSON.stringify(o) };
  },
  usageBeforeEnd: () => true,
};

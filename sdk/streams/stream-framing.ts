/**
 * How a streamed answer's bytes are cut into events, per wire format: SSE (OpenAI,
 * Anthropic, Gemini with `alt=sse`), a JSON array streamed element by element (Gemini
 * without `alt=sse`), AWS event-stream binary frames (Bedrock). Every framing yields the
 * same `SseEvent` shape — an event name and its JSON text — so a dialect reads events, not
 * bytes, and the guard forwards what it decoded encoded again, whole frames only.
 */
import { SseReader, formatSseEvent, type SseEvent } from '@breakerbox/protocol';

/** Cuts one body into events. */
export interface FrameDecoder {
  /** Decodes one chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array): SseEvent[];
  /** The body ended: events that were still pending, if they are whole. */
  end(): SseEvent[];
}

/** Writes events back in the framing (the guard forwards what it decoded). */
export interface FrameEncoder {
  /** One event's bytes. */
  frame(e: SseEvent): Uint8Array;
  /** Bytes that close the stream (a JSON array's `]`), if any. */
  end(): Uint8Array | undefined;
}

/** One wire format of streamed answers. */
export interface StreamFraming {
  /** `sse`, `json-array`, `aws-event-stream`. */
  readonly name: string;
  decoder(): FrameDecoder;
  encoder(): FrameEncoder;
}

const utf8 = new TextEncoder();

/** Server-sent events (`text/event-stream`). */
export const sseFraming: StreamFraming = {
  name: 'sse',
  decoder: () => new SseReader(),
  encoder: () => ({ frame: (e) => utf8.encode(formatSseEvent(e)), end: () => undefined }),
};

/** Whether a content type is server-sent events. */
export function isEventStreamType(contentType: string | null): boolean {
  return (contentType ?? '').includes('text/event-stream');
}

/**
 * How a streamed answer's bytes are cut into events, per wire format: SSE (OpenAI,
 * Anthropic, Gemini with `alt=sse`), a JSON array streamed element by element (Gemini
 * without `alt=sse`), AWS event-stream binary frames (Bedrock). Every framing yields the
 * same `SseEvent` shape — an event name and its JSON text — so a dialect reads events, not
 * bytes, and the guard forwards what it decoded encoded again, whole frames only.
 */
import { AwsEventReader, SseReader, awsEventMessage, encodeEventStreamMessage, formatSseEvent, type SseEvent } from '@breakerbox/protocol';

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

/**
 * AWS event-stream binary frames (`application/vnd.amazon.eventstream`, Bedrock's
 * `converse-stream` and `invoke-with-response-stream`), read as named events by the
 * protocol's `AwsEventReader` (an exception is `exception:<type>`, so a dialect tells it
 * from an event). A frame whose payload CRC does not match is a malformed event (its length
 * is known, so the next frames are read); a corrupt prelude loses the framing: one
 * malformed event, then nothing. The encoder writes events back as AWS does.
 */
export const awsEventStreamFraming: StreamFraming = {
  name: 'aws-event-stream',
  decoder() {
    const reader = new AwsEventReader();
    let broken = false;
    return {
      push(chunk) {
        if (broken) return [];
        try {
          return reader.push(chunk);
        } catch {
          broken = true;
          return [{ event: 'malformed', data: '' }];
        }
      },
      end: () => [],
    };
  },
  encoder: () => ({ frame: (e) => encodeEventStreamMessage(awsEventMessage(e)), end: () => undefined }),
};

/** Whether a content type is AWS event-stream frames. */
export function isAwsEventStreamType(contentType: string | null): boolean {
  return (contentType ?? '').includes('application/vnd.amazon.eventstream');
}

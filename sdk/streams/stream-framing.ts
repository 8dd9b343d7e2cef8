/**
 * How a streamed answer's bytes are cut into events, per wire format: SSE (OpenAI,
 * Anthropic, Gemini with `alt=sse`), a JSON array streamed element by element (Gemini
 * without `alt=sse`), AWS event-stream binary frames (Bedrock). Every framing yields the
 * same `SseEvent` shape — an event name and its JSON text — so a dialect reads events, not
 * bytes, and the guard forwards what it decoded encoded again, whole frames only.
 */
import { EventStreamReader, SseReader, encodeEventStreamMessage, formatSseEvent, type SseEvent } from '@breakerbox/protocol';

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

const fromUtf8 = new TextDecoder();

/**
 * AWS event-stream binary frames (`application/vnd.amazon.eventstream`, Bedrock's
 * `converse-stream` and `invoke-with-response-stream`). An event message is the event named
 * by its `:event-type`, its payload the data; an exception message is `exception:<its
 * :exception-type>`, an error message `error:<its :error-code>` (data `{"message":…}`), so a
 * dialect tells them from events. A frame whose CRC does not match is a malformed event.
 * The encoder writes events back as AWS does (`:event-type`, `:content-type`, `:message-type`).
 */
export const awsEventStreamFraming: StreamFraming = {
  name: 'aws-event-stream',
  decoder() {
    const reader = new EventStreamReader();
    let broken = false;
    return {
      push(chunk) {
        if (broken) return [];
        try {
          return reader.push(chunk).map((m): SseEvent => {
            // A frame whose payload CRC failed is one malformed event; its neighbours are whole.
            if (m.corrupt !== undefined) return { event: 'malformed', data: '' };
            const h = m.headers;
            const data = fromUtf8.decode(m.body);
            if (h[':message-type'] === 'exception') return { event: `exception:${String(h[':exception-type'] ?? 'unknown')}`, data };
            if (h[':message-type'] === 'error') return { event: `error:${String(h[':error-code'] ?? 'unknown')}`, data: JSON.stringify({ message: String(h[':error-message'] ?? '') }) };
            return { event: String(h[':event-type'] ?? 'message'), data };
          });
        } catch {
          // A corrupt frame loses the framing of everything after it: one malformed event, then nothing.
          broken = true;
          return [{ event: 'malformed', data: '' }];
        }
      },
      end: () => [],
    };
  },
  encoder: () => ({
    frame(e) {
      const exception = e.event.startsWith('exception:') ? e.event.slice('exception:'.length) : undefined;
      const headers: Record<string, string> = exception
        ? { ':exception-type': exception, ':content-type': 'application/json', ':message-type': 'exception' }
        : { ':event-type': e.event, ':content-type': 'application/json', ':message-type': 'event' };
      return encodeEventStreamMessage({ headers, body: utf8.encode(e.data) });
    },
    end: () => undefined,
  }),
};

/** Whether a content type is AWS event-stream frames. */
export function isAwsEventStreamType(contentType: string | null): boolean {
  return (contentType ?? '').includes('application/vnd.amazon.eventstream');
}

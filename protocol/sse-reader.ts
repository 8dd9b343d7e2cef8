/**
 * The one Server-Sent Events reader of breakerbox (the SDK's stream guard and the prober's
 * streamed probes), on `eventsource-parser`: chunks may split anywhere, even inside a
 * multi-byte character or a CRLF. What a frame *means* (a token, a finish reason, an
 * error event) is dialect-specific and stays with its user.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One dispatched event: its name (`message` when none was given) and its data. */
export interface SseEvent {
  event: string;
  data: string;
}

// An event ends at a blank line: two line ends in a row, in any of the three spellings.
const EVENT_END = /(?:\r\n|\r|\n)(?:\r\n|\r|\n)/g;

/** Feeds bytes in, gets complete events out. */
export class SseReader {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private out: SseEvent[] = [];
  /** Text after the last event boundary: a stream that ends with some here was cut. */
  private tail = '';

  constructor() {
    this.parser = createParser({ onEvent: (m) => this.out.push({ event: m.event ?? 'message', data: m.data }) });
  }

  /** True when part of an event (or a line) arrived without its end. */
  get pending(): boolean {
    return this.tail.split(/\r\n|\r|\n/).some((line) => line !== '' && !line.startsWith(':'));
  }

  /** Parses one chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    this.parser.feed(text);
    const joined = this.tail + text;
    let end = -1;
    for (const m of joined.matchAll(EVENT_END)) end = m.index + m[0].length;
    this.tail = end === -1 ? joined : joined.slice(end);
    const events = this.out;
    this.out = [];
    return events;
  }

  /** The stream ended: dispatches an event that arrived without its blank line, if any. */
  end(): SseEvent[] {
    const rest = this.decoder.decode();
    return this.pending || rest ? this.push(`${rest}\n\n`) : [];
  }
}

/** One event as SSE text, with its terminating blank line (`event:` only when not the default). */
export function formatSseEvent(e: SseEvent): string {
  const head = e.event === 'message' ? '' : `event: ${e.event}\n`;
  return `${head}${e.data.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`;
}

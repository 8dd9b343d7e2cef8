/**
 * An incremental Server-Sent Events parser (the subset model APIs use: `event:`,
 * `data:` possibly over several lines, comments, CRLF or LF line ends). Chunks may split
 * anywhere, even inside a multi-byte character, so it decodes with a streaming decoder.
 */
import { StringDecoder } from 'node:string_decoder';

/** One dispatched event: its name (`message` when none was given) and its data. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Feeds bytes in, gets complete events out. */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private eventName = '';
  private dataLines: string[] = [];
  /** Bytes of a line that never ended; a stream ending here was cut. */
  get pending(): boolean {
    return this.buffer.length > 0 || this.dataLines.length > 0;
  }

  /** Parses one chunk; returns the events it completed, in order. */
  push(chunk: Buffer | string): SseEvent[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = this.buffer.indexOf('\n', start);
      if (nl === -1) break;
      let line = this.buffer.slice(start, nl);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = nl + 1;
      this.line(line, events);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.dataLines.length > 0) out.push({ event: this.eventName || 'message', data: this.dataLines.join('\n') });
      this.dataLines = [];
      this.eventName = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
  }
}

/**
 * The JSON-array stream framing: Gemini's `:streamGenerateContent` without `alt=sse`
 * answers `application/json` whose body is one JSON array written element by element
 * (`[{…}\r\n,{…}\r\n]`). Each top-level element is one event (`event: 'message'`, its JSON
 * text as `data`); the encoder writes the elements back as an array, `]` at the end.
 *
 * The decoder scans bytes once, tracking string and escape state and nesting depth, so a
 * `]` or `,` inside a string never cuts an element. Text that is not an array (an element
 * that does not start with `{` or `[`, a stray value) is passed on as an event of its own
 * so the dialect reports it malformed instead of the guard silently waiting.
 */
import type { SseEvent } from '@breakerbox/protocol';
import type { FrameDecoder, FrameEncoder, StreamFraming } from './stream-framing.ts';

const utf8 = new TextEncoder();

class JsonArrayDecoder implements FrameDecoder {
  private readonly text = new TextDecoder();
  /** The element being read (its text so far). */
  private buf = '';
  /** Whether the opening `[` was seen. */
  private opened = false;
  private closed = false;
  private depth = 0;
  private inString = false;
  private escaped = false;

  push(chunk: Uint8Array): SseEvent[] {
    return this.scan(this.text.decode(chunk, { stream: true }));
  }

  end(): SseEvent[] {
    const out = this.scan(this.text.decode());
    // An element cut by the end of the body: handed on as it is, so the dialect sees it is not JSON.
    if (this.buf.trim()) out.push({ event: 'message', data: this.buf.trim() });
    this.buf = '';
    return out;
  }

  private scan(s: string): SseEvent[] {
    const out: SseEvent[] = [];
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (this.closed) continue;
      if (this.depth === 0 && !this.inString) {
        // Between elements: whitespace, the array's brackets, separators.
        if (!this.opened) {
          if (c === '[') this.opened = true;
          else if (!/\s/.test(c)) {
            // Not an array at all: read it as one element (a JSON object body, an error).
            this.opened = true;
            i--;
            this.depth = 0;
            this.startElement();
          }
          continue;
        }
        if (c === ',' || /\s/.test(c)) continue;
        if (c === ']') {
          this.closed = true;
          continue;
        }
        this.startElement();
      }
      this.buf += c;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') this.depth--;
      if (this.depth === 0 && !this.inString && this.buf.length > 0 && this.pending) {
        out.push({ event: 'message', data: this.buf });
        this.buf = '';
        this.pending = false;
      }
    }
    return out;
  }

  /** An element is being read (depth may still be 0 for a scalar's first character). */
  private pending = false;
  private startElement(): void {
    this.pending = true;
    this.buf = '';
  }
}

class JsonArrayEncoder implements FrameEncoder {
  private first = true;
  frame(e: SseEvent): Uint8Array {
    const head = this.first ? '[' : ',\r\n';
    this.first = false;
    return utf8.encode(head + e.data);
  }
  end(): Uint8Array {
    return utf8.encode(this.first ? '[]' : ']');
  }
}

/** A JSON array streamed element by element (Gemini without `alt=sse`). */
export const jsonArrayFraming: StreamFraming = {
  name: 'json-array',
  decoder: () => new JsonArrayDecoder(),
  encoder: () => new JsonArrayEncoder(),
};

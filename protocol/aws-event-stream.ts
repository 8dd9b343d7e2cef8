/**
 * The AWS event-stream binary framing (`application/vnd.amazon.eventstream`: Bedrock's
 * `converse-stream` and `invoke-with-response-stream`, Transcribe, Kinesis): every message
 * is a prelude (total length, headers length, both big-endian uint32) with its CRC32, the
 * headers (name length, name, type tag, value), the payload, and a CRC32 of everything
 * before it. The format is AWS's documented one, as `@smithy/eventstream-codec` reads and
 * writes it; this small codec exists so the SDK decodes and re-encodes Bedrock streams
 * without a runtime dependency (its tests check it against `@smithy/eventstream-codec`).
 */

import type { SseEvent } from './sse-reader.ts';

/** A header's value, typed as its tag says (0/1 boolean, 2 byte, 3 short, 4 integer, 5 long, 6 binary, 7 string, 8 timestamp, 9 uuid). */
export type EventStreamHeaderValue = boolean | number | bigint | string | Uint8Array | Date | { uuid: string };

/** One decoded message. */
export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  body: Uint8Array;
  /** Set (headers and body empty) when the reader skipped a message that failed its checks: why. */
  corrupt?: string;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 (IEEE 802.3, as zlib's) of `bytes`, continuing from `crc` (0 to start). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const PRELUDE = 8;
const OVERHEAD = PRELUDE + 8; // prelude CRC + message CRC
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: false });

function headerBytes(name: string, value: EventStreamHeaderValue): Uint8Array {
  const n = utf8.encode(name);
  if (n.length > 255) throw new Error(`event-stream header name over 255 bytes: ${name}`);
  let v: Uint8Array;
  if (typeof value === 'boolean') v = Uint8Array.of(value ? 0 : 1);
  else if (typeof value === 'number') {
    v = new Uint8Array(5);
    v[0] = 4;
    new DataView(v.buffer).setInt32(1, value, false);
  } else if (typeof value === 'bigint' || value instanceof Date) {
    v = new Uint8Array(9);
    v[0] = typeof value === 'bigint' ? 5 : 8;
    new DataView(v.buffer).setBigInt64(1, typeof value === 'bigint' ? value : BigInt(value.getTime()), false);
  } else if (typeof value === 'string' || value instanceof Uint8Array) {
    const b = typeof value === 'string' ? utf8.encode(value) : value;
    if (b.length > 32767) throw new Error(`event-stream header value over 32767 bytes: ${name}`);
    v = new Uint8Array(3 + b.length);
    v[0] = typeof value === 'string' ? 7 : 6;
    new DataView(v.buffer).setUint16(1, b.length, false);
    v.set(b, 3);
  } else {
    const hex = value.uuid.replace(/-/g, '');
    if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`event-stream header ${name}: not a UUID`);
    v = new Uint8Array(17);
    v[0] = 9;
    for (let i = 0; i < 16; i++) v[1 + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  const out = new Uint8Array(1 + n.length + v.length);
  out[0] = n.length;
  out.set(n, 1);
  out.set(v, 1 + n.length);
  return out;
}

/** One message's bytes (CRCs included). A `number` header is written as a 32-bit integer. */
export function encodeEventStreamMessage(m: EventStreamMessage): Uint8Array {
  const parts = Object.entries(m.headers).map(([k, v]) => headerBytes(k, v));
  const headersLength = parts.reduce((s, p) => s + p.length, 0);
  const total = headersLength + m.body.length + OVERHEAD;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total, false);
  view.setUint32(4, headersLength, false);
  view.setUint32(8, crc32(out.subarray(0, PRELUDE)), false);
  let at = 12;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  out.set(m.body, at);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)), false);
  return out;
}

function parseHeaders(b: Uint8Array): Record<string, EventStreamHeaderValue> {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Record<string, EventStreamHeaderValue> = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > b.length) throw new Error('event-stream headers run past their length');
  };
  while (at < b.length) {
    const nameLength = b[at++]!;
    need(nameLength + 1);
    const name = fromUtf8.decode(b.subarray(at, at + nameLength));
    at += nameLength;
    const tag = b[at++]!;
    switch (tag) {
      case 0:
      case 1:
        out[name] = tag === 0;
        break;
      case 2:
        need(1);
        out[name] = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        out[name] = view.getInt16(at, false);
        at += 2;
        break;
      case 4:
        need(4);
        out[name] = view.getInt32(at, false);
        at += 4;
        break;
      case 5:
      case 8: {
        need(8);
        const n = view.getBigInt64(at, false);
        out[name] = tag === 5 ? n : new Date(Number(n));
        at += 8;
        break;
      }
      case 6:
      case 7: {
        need(2);
        const len = view.getUint16(at, false);
        at += 2;
        need(len);
        const bytes = b.slice(at, at + len);
        out[name] = tag === 7 ? fromUtf8.decode(bytes) : bytes;
        at += len;
        break;
      }
      case 9: {
        need(16);
        const hex = Array.from(b.subarray(at, at + 16), (x) => x.toString(16).padStart(2, '0')).join('');
        out[name] = { uuid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
        at += 16;
        break;
      }
      default:
        throw new Error(`event-stream header ${name}: unknown type tag ${tag}`);
    }
  }
  return out;
}

/** Decodes exactly one whole message; throws when its lengths or either CRC do not match. */
export function decodeEventStreamMessage(bytes: Uint8Array): EventStreamMessage {
  if (bytes.length < OVERHEAD) throw new Error('event-stream message shorter than its prelude and checksums');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = view.getUint32(0, false);
  const headersLength = view.getUint32(4, false);
  if (total !== bytes.length) throw new Error(`event-stream message length ${total} is not the ${bytes.length} bytes given`);
  if (view.getUint32(8, false) !== crc32(bytes.subarray(0, PRELUDE))) throw new Error('event-stream prelude CRC32 mismatch');
  if (view.getUint32(total - 4, false) !== crc32(bytes.subarray(0, total - 4))) throw new Error('event-stream message CRC32 mismatch');
  if (headersLength > total - OVERHEAD) throw new Error('event-stream headers longer than the message');
  return {
    headers: parseHeaders(bytes.subarray(12, 12 + headersLength)),
    body: bytes.slice(12 + headersLength, total - 4),
  };
}

/**
 * Cuts a byte stream into messages: chunks may split anywhere, even inside a prelude. A
 * message whose prelude is sound but whose message CRC (or headers) is not is returned in
 * its place as `{ corrupt }` — its length is still known, so the next ones are read; a
 * corrupt prelude loses the framing: `push` throws.
 */
export class EventStreamReader {
  private buf: Uint8Array = new Uint8Array(0);

  /** Bytes received that are not a whole message yet (a stream that ends with some was cut). */
  get pending(): number {
    return this.buf.length;
  }

  /** Feeds one chunk; returns the messages it completed, in order. Throws on a corrupt message. */
  push(chunk: Uint8Array): EventStreamMessage[] {
    if (this.buf.length === 0) this.buf = chunk;
    else {
      const joined = new Uint8Array(this.buf.length + chunk.length);
      joined.set(this.buf);
      joined.set(chunk, this.buf.length);
      this.buf = joined;
    }
    const out: EventStreamMessage[] = [];
    let at = 0;
    while (this.buf.length - at >= PRELUDE) {
      const total = new DataView(this.buf.buffer, this.buf.byteOffset + at, 4).getUint32(0, false);
      if (total < OVERHEAD) throw new Error(`event-stream message length ${total} is shorter than its overhead`);
      if (this.buf.length - at < total) break;
      const bytes = this.buf.subarray(at, at + total);
      if (new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(8, false) !== crc32(bytes.subarray(0, PRELUDE))) {
        throw new Error('event-stream prelude CRC32 mismatch');
      }
      at += total;
      try {
        out.push(decodeEventStreamMessage(bytes));
      } catch (err) {
        out.push({ headers: {}, body: new Uint8Array(0), corrupt: err instanceof Error ? err.message : String(err) });
      }
    }
    this.buf = at === 0 ? this.buf : this.buf.slice(at);
    return out;
  }
}

const utf8Decoder = new TextDecoder();

/**
 * One message as a named event, so that stream dialects read event-stream frames as they
 * read SSE: an event message is named by its `:event-type` (data: the payload); an
 * exception `exception:<:exception-type>`, an error `error:<:error-code>` (data
 * `{"message":…}`); a message the reader marked corrupt is `malformed`.
 */
export function awsEventOf(m: EventStreamMessage): SseEvent {
  if (m.corrupt !== undefined) return { event: 'malformed', data: '' };
  const h = m.headers;
  const data = utf8Decoder.decode(m.body);
  if (h[':message-type'] === 'exception') return { event: `exception:${String(h[':exception-type'] ?? 'unknown')}`, data };
  if (h[':message-type'] === 'error') return { event: `error:${String(h[':error-code'] ?? 'unknown')}`, data: JSON.stringify({ message: String(h[':error-message'] ?? '') }) };
  return { event: String(h[':event-type'] ?? 'message'), data };
}

/** The message an event named as `awsEventOf` names it is written as (JSON payload, AWS's headers). */
export function awsEventMessage(e: SseEvent): EventStreamMessage {
  const exception = e.event.startsWith('exception:') ? e.event.slice('exception:'.length) : undefined;
  const headers: Record<string, string> = exception
    ? { ':exception-type': exception, ':content-type': 'application/json', ':message-type': 'exception' }
    : { ':event-type': e.event, ':content-type': 'application/json', ':message-type': 'event' };
  return { headers, body: utf8.encode(e.data) };
}

/** Reads a byte stream as named events (`awsEventOf`); a corrupt prelude throws. */
export class AwsEventReader {
  private readonly reader = new EventStreamReader();

  /** Feeds one chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.reader.push(chunk).map(awsEventOf);
  }
}

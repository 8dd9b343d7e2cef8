/**
 * The protocol's AWS event-stream codec against AWS's own `@smithy/eventstream-codec`: what
 * one encodes the other decodes, byte for byte, with every header type; corrupt prelude or
 * message CRCs are refused; a stream split at any byte reads whole messages only.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EventStreamCodec, Int64 } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { EventStreamReader, crc32, decodeEventStreamMessage, encodeEventStreamMessage } from '@breakerbox/protocol';

const smithy = new EventStreamCodec(toUtf8, fromUtf8);
const text = new TextEncoder();

function bedrockEvent(type: string, payload: unknown) {
  return {
    headers: {
      ':event-type': { type: 'string' as const, value: type },
      ':content-type': { type: 'string' as const, value: 'application/json' },
      ':message-type': { type: 'string' as const, value: 'event' },
    },
    body: text.encode(JSON.stringify(payload)),
  };
}

describe('AWS event-stream codec', () => {
  it('computes the same CRC32 as zlib', () => {
    for (const s of ['', 'a', 'The quick brown fox jumps over the lazy dog', '\u00e9\u4e2d\ud83d\ude00']) {
      expect(crc32(text.encode(s))).toBe(zlibCrc32(s));
    }
    // continuing a CRC over two parts is the CRC of the whole
    expect(crc32(text.encode('world'), crc32(text.encode('hello ')))).toBe(zlibCrc32('hello world'));
  });

  it('decodes what @smithy/eventstream-codec encodes, every header type included', () => {
    const bytes = smithy.encode({
      headers: {
        ':event-type': { type: 'string', value: 'contentBlockDelta' },
        yes: { type: 'boolean', value: true },
        no: { type: 'boolean', value: false },
        b: { type: 'byte', value: -7 },
        s: { type: 'short', value: 1234 },
        i: { type: 'integer', value: -123456 },
        l: { type: 'long', value: Int64.fromNumber(2 ** 40 + 5) },
        bin: { type: 'binary', value: Uint8Array.of(1, 2, 3) },
        ts: { type: 'timestamp', value: new Date(1767225600000) },
        id: { type: 'uuid', value: '0123abcd-4567-89ef-0123-456789abcdef' },
      },
      body: text.encode('{"contentBlockIndex":0,"delta":{"text":"Hi"}}'),
    });
    const m = decodeEventStreamMessage(bytes);
    expect(m.headers).toEqual({
      ':event-type': 'contentBlockDelta',
      yes: true,
      no: false,
      b: -7,
      s: 1234,
      i: -123456,
      l: BigInt(2 ** 40 + 5),
      bin: Uint8Array.of(1, 2, 3),
      ts: new Date(1767225600000),
      id: { uuid: '0123abcd-4567-89ef-0123-456789abcdef' },
    });
    expect(new TextDecoder().decode(m.body)).toBe('{"contentBlockIndex":0,"delta":{"text":"Hi"}}');
  });

  it('encodes the same bytes as @smithy/eventstream-codec, which decodes them back', () => {
    const reference = bedrockEvent('messageStop', { stopReason: 'end_turn' });
    const ours = encodeEventStreamMessage({
      headers: { ':event-type': 'messageStop', ':content-type': 'application/json', ':message-type': 'event' },
      body: reference.body,
    });
    expect(Buffer.from(ours).equals(Buffer.from(smithy.encode(reference)))).toBe(true);
    const back = smithy.decode(ours);
    expect(back.headers[':event-type']).toEqual({ type: 'string', value: 'messageStop' });
    const typed = encodeEventStreamMessage({ headers: { n: 42, t: true, l: 9n, d: new Date(5), u: { uuid: '0123abcd-4567-89ef-0123-456789abcdef' } }, body: new Uint8Array(0) });
    const h = smithy.decode(typed).headers;
    expect([h.n, h.t, h.d, h.u]).toEqual([
      { type: 'integer', value: 42 },
      { type: 'boolean', value: true },
      { type: 'timestamp', value: new Date(5) },
      { type: 'uuid', value: '0123abcd-4567-89ef-0123-456789abcdef' },
    ]);
    expect(h.l!.value.valueOf()).toBe(9);
  });

  it('refuses a message whose prelude or message CRC32 does not match', () => {
    const good = smithy.encode(bedrockEvent('metadata', { usage: { inputTokens: 3, outputTokens: 8 } }));
    const badPrelude = good.slice();
    badPrelude[9]! ^= 0xff;
    expect(() => decodeEventStreamMessage(badPrelude)).toThrow(/prelude CRC32/);
    const badBody = good.slice();
    badBody[good.length - 10]! ^= 0x01;
    expect(() => decodeEventStreamMessage(badBody)).toThrow(/message CRC32/);
    expect(() => smithy.decode(badBody)).toThrow(); // the reference agrees
    // In a stream, a bad message CRC stands in its place and the next message is read; a bad prelude throws.
    const next = smithy.encode(bedrockEvent('messageStop', {}));
    const read = new EventStreamReader().push(Buffer.concat([badBody, next]));
    expect(read.map((m) => m.corrupt ?? m.headers[':event-type'])).toEqual([expect.stringMatching(/message CRC32/), 'messageStop']);
    expect(() => new EventStreamReader().push(badPrelude)).toThrow(/prelude CRC32/);
  });

  it('reads whole messages from a stream split at every byte, and holds a cut one as pending', () => {
    const events = ['messageStart', 'contentBlockDelta', 'contentBlockDelta', 'messageStop'].map((t, i) => smithy.encode(bedrockEvent(t, { i })));
    const all = Buffer.concat(events);
    for (const size of [1, 3, 7, 50, all.length]) {
      const r = new EventStreamReader();
      const got: string[] = [];
      for (let at = 0; at < all.length; at += size) for (const m of r.push(all.subarray(at, at + size))) got.push(String(m.headers[':event-type']));
      expect(got).toEqual(['messageStart', 'contentBlockDelta', 'contentBlockDelta', 'messageStop']);
      expect(r.pending).toBe(0);
    }
    const r = new EventStreamReader();
    expect(r.push(all.subarray(0, events[0]!.length + 5))).toHaveLength(1);
    expect(r.pending).toBe(5);
  });
});

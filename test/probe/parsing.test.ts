/**
 * The small pieces every probe goes through: the SSE parser (chunks split anywhere)
 * and the redactor (exact secrets and credential shapes).
 */
import { describe, expect, it } from 'vitest';
import { SseReader } from '@breakerbox/protocol';
import { createRedactor, redactDeep } from '../../probe/redact.ts';

describe('SSE parser', () => {
  const stream = 'event: message_start\r\ndata: {"a":1}\r\n\r\n: keep-alive comment\n\ndata: line one\ndata: line two\n\ndata: é✓\n\n';
  const expected = [
    { event: 'message_start', data: '{"a":1}' },
    { event: 'message', data: 'line one\nline two' },
    { event: 'message', data: 'é✓' },
  ];

  it('parses events with CRLF and LF, comments and multi-line data', () => {
    expect(new SseReader().push(Buffer.from(stream))).toEqual(expected);
  });

  it('gives the same events however the bytes are split, even inside a character', () => {
    const bytes = Buffer.from(stream);
    for (let size = 1; size <= 7; size++) {
      const parser = new SseReader();
      const events = [];
      for (let i = 0; i < bytes.length; i += size) events.push(...parser.push(bytes.subarray(i, i + size)));
      expect(events).toEqual(expected);
      expect(parser.pending).toBe(false);
    }
  });

  it('keeps an unfinished event pending instead of emitting it', () => {
    const parser = new SseReader();
    expect(parser.push('data: {"half":')).toEqual([]);
    expect(parser.pending).toBe(true);
  });
});

describe('redactor', () => {
  const secret = 'my-provider-key-with-no-known-prefix-123';
  const redact = createRedactor([secret, undefined, 'ab']);

  it('removes exact secret values wherever they appear', () => {
    expect(redact(`failed with key=${secret}, again ${secret}`)).toBe('failed with key=[redacted], again [redacted]');
  });

  it('removes credential shapes: bearer values, provider key prefixes, api-key headers', () => {
    expect(redact('Authorization: Bearer abcdef123456')).toBe('Authorization: [redacted]');
    expect(redact('Incorrect API key provided: sk-proj-abc***xyz.')).toBe('Incorrect API key provided: [redacted].');
    expect(redact('{"x-api-key":"k3y-value-9"}')).toBe('{"x-api-key":"[redacted]"}');
  });

  it('ignores values too short to be keys', () => {
    expect(redact('ab cd')).toBe('ab cd');
  });

  it('redacts strings nested in objects, arrays and errors', () => {
    expect(redactDeep({ a: [secret, { b: new Error(`boom ${secret}`) }], n: 3 }, redact)).toEqual({ a: ['[redacted]', { b: 'boom [redacted]' }], n: 3 });
  });
});

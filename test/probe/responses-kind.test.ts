/**
 * The `openai-responses` kind against a provider speaking the Responses API's wire format
 * (event and field names from the official client's types): ok only for a `completed`
 * response with output text; incomplete, failed, error events and broken streams each
 * get their class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireMode } from './wire-provider.ts';
import { API_KEY } from './helpers.ts';
import { probeOnce } from './probe-once.ts';
import { startWireProvider, type WireProvider } from './wire-provider.ts';

let wire: WireProvider;
let seq = 0;
beforeAll(async () => {
  wire = await startWireProvider();
});
afterAll(async () => {
  await wire.close();
});

async function probe(mode: WireMode, stream: boolean, request: Record<string, unknown> = {}) {
  const model = `gpt-4.1-${++seq}`;
  wire.mode(model, mode);
  return probeOnce(wire.baseUrl, 'openai-responses', model, { stream, ...request });
}

describe('healthy Responses answers', () => {
  for (const stream of [false, true]) {
    it(`${stream ? 'a streamed' : 'a JSON'} completed response with output text is ok, priced from its usage`, async () => {
      const { event } = await probe('ok', stream);
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      expect(event.error_class).toBeUndefined();
      expect(event.latency_ms.ttfb).toBeTypeOf('number');
      expect(event.cost_usd).toBeCloseTo((12 * 1.25 + 2 * 10) / 1e6, 12);
    });
  }

  it('sends a small Responses request of the product shape: input, instructions, max_output_tokens 16, stream, store false, no reasoning', async () => {
    await probe('ok', true, { system: 'You are terse.' });
    const sent = wire.requests[wire.requests.length - 1]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toEqual({
      model: `gpt-4.1-${seq}`,
      input: 'Reply with the single word: OK',
      instructions: 'You are terse.',
      max_output_tokens: 16,
      stream: true,
      store: false,
    });
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers.accept).toBe('text/event-stream');
  });

  it('times the first token at the first response.output_text.delta, not at response.created', async () => {
    // The provider sends response.created at once and the first delta 300 ms later.
    const slow = await probe('slow_first_token', true);
    expect(slow.event.outcome).toBe('ok');
    expect(slow.event.latency_ms.ttfb).toBeGreaterThanOrEqual(300);
    // So a first-token timeout shorter than that wait fires although events were flowing.
    const model = `gpt-4.1-${++seq}`;
    wire.mode(model, 'slow_first_token');
    const timed = await probeOnce(wire.baseUrl, 'openai-responses', model, { stream: true }, {
      over: { timeouts: { connect_ms: 1_000, first_byte_ms: 100, total_ms: 4_000 } },
    });
    expect(timed.event).toMatchObject({ outcome: 'error', error_class: 'timeout', status: 200 });
  });
});

describe('Responses answers that are not ok', () => {
  const cases: Array<{ mode: WireMode; stream: boolean; cls: string }> = [
    { mode: 'incomplete', stream: false, cls: 'truncated' },
    { mode: 'incomplete', stream: true, cls: 'truncated' },
    { mode: 'content_filter', stream: false, cls: 'policy' },
    { mode: 'content_filter', stream: true, cls: 'policy' },
    { mode: 'failed', stream: false, cls: 'server' },
    { mode: 'failed', stream: true, cls: 'server' },
    { mode: 'error_event', stream: true, cls: 'rate_limit' },
    { mode: 'no_terminal', stream: true, cls: 'stream_broken' },
    { mode: 'no_text', stream: false, cls: 'server' },
    { mode: 'no_text', stream: true, cls: 'server' },
  ];
  for (const c of cases) {
    it(`${c.mode} (${c.stream ? 'streamed' : 'JSON'}) → error / ${c.cls}`, async () => {
      const { event, lines } = await probe(c.mode, c.stream);
      expect(event).toMatchObject({ outcome: 'error', error_class: c.cls, status: 200 });
      expect(lines.some((l) => l.includes('probe failed'))).toBe(true);
    });
  }

  it('a max_tokens below the API floor of 16 is refused in the config, naming the field', async () => {
    await expect(probe('ok', false, { max_tokens: 8 })).rejects.toThrow(
      /request\.max_tokens: must be an integer between 16 and 32768, got 8/,
    );
  });
});

/**
 * The `openai-responses` kind against the shared fake provider speaking the Responses
 * API's wire format (event and field names from the official client's types): ok only for
 * a `completed` response with output text; incomplete, failed, error events and broken
 * streams each get their class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../support/fake-provider-bodies.ts';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { API_KEY } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY], responsesMinOutputTokens: 16 });
});
afterAll(async () => {
  await fake.close();
});

const last = () => fake.attempts[fake.attempts.length - 1]!;

async function probe(fault: Fault, stream: boolean, request: Record<string, unknown> = {}) {
  const model = `gpt-4.1-${++seq}`;
  fake.script(model, fault);
  return probeOnce(fake.openaiBaseUrl, 'openai-responses', model, { stream, ...request });
}

describe('healthy Responses answers', () => {
  for (const stream of [false, true]) {
    it(`${stream ? 'a streamed' : 'a JSON'} completed response with output text is ok, priced from its usage`, async () => {
      const { event } = await probe({ kind: 'ok' }, stream);
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      expect(event.error_class).toBeUndefined();
      expect(event.latency_ms.ttfb).toBeTypeOf('number');
      // The fake's usage: its input estimate, 8 output tokens.
      expect(event.cost_usd).toBeCloseTo((estimateInputTokens(last().body) * 1.25 + 8 * 10) / 1e6, 12);
    });
  }

  it('sends a small Responses request of the product shape: input, instructions, max_output_tokens 16, stream, store false, no reasoning', async () => {
    const { event } = await probe({ kind: 'ok' }, true, { system: 'You are terse.' });
    const sent = last();
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toEqual({
      model: `gpt-4.1-${seq}`,
      input: 'Reply with the single word: OK',
      instructions: 'You are terse.',
      max_output_tokens: 16,
      stream: true,
      store: false,
    });
    // The fake answers 401 to anything but `Bearer <its key>` (and redacts the key in its log).
    expect(event.outcome).toBe('ok');
    expect(sent.headers.authorization).toBe('[redacted]');
    expect(sent.headers.accept).toBe('text/event-stream');
  });

  it('times the first token at the first response.output_text.delta, not at response.created', async () => {
    // The provider sends response.created at once and the first delta 300 ms later.
    const slow = await probe({ kind: 'slow_first_token', ms: 300 }, true);
    expect(slow.event.outcome).toBe('ok');
    expect(slow.event.latency_ms.ttfb).toBeGreaterThanOrEqual(300);
    // So a first-token timeout shorter than that wait fires although events were flowing.
    const model = `gpt-4.1-${++seq}`;
    fake.script(model, { kind: 'slow_first_token', ms: 300 });
    const timed = await probeOnce(fake.openaiBaseUrl, 'openai-responses', model, { stream: true }, {
      over: { timeouts: { connect_ms: 1_000, first_byte_ms: 100, total_ms: 4_000 } },
    });
    expect(timed.event).toMatchObject({ outcome: 'error', error_class: 'timeout', status: 200 });
  });
});

describe('Responses answers that are not ok', () => {
  const failed: Fault = { kind: 'stream_error', afterTokens: 0 }; // status failed, error.code server_error
  const cases: Array<{ name: string; fault: Fault; stream: boolean; cls: string }> = [
    { name: 'incomplete (max_output_tokens)', fault: { kind: 'finish_length' }, stream: false, cls: 'truncated' },
    { name: 'incomplete (max_output_tokens)', fault: { kind: 'finish_length' }, stream: true, cls: 'truncated' },
    { name: 'incomplete (content_filter)', fault: { kind: 'content_filter' }, stream: false, cls: 'policy' },
    { name: 'incomplete (content_filter)', fault: { kind: 'content_filter' }, stream: true, cls: 'policy' },
    { name: 'failed', fault: failed, stream: false, cls: 'server' },
    { name: 'failed', fault: failed, stream: true, cls: 'server' },
    { name: 'an error event (rate_limit_exceeded)', fault: { kind: 'stream_error', afterTokens: 1, as: 'error', code: 'rate_limit_exceeded' }, stream: true, cls: 'rate_limit' },
    { name: 'no response.completed', fault: { kind: 'no_end_event' }, stream: true, cls: 'stream_broken' },
    { name: 'completed without text', fault: { kind: 'ok', tokens: 0 }, stream: false, cls: 'server' },
    { name: 'completed without text', fault: { kind: 'ok', tokens: 0 }, stream: true, cls: 'server' },
  ];
  for (const c of cases) {
    it(`${c.name} (${c.stream ? 'streamed' : 'JSON'}) → error / ${c.cls}`, async () => {
      const { event, lines } = await probe(c.fault, c.stream);
      expect(event).toMatchObject({ outcome: 'error', error_class: c.cls, status: 200 });
      expect(lines.some((l) => l.includes('probe failed'))).toBe(true);
    });
  }

  it('a max_tokens below the API floor of 16 is refused in the config, naming the field', async () => {
    await expect(probe({ kind: 'ok' }, false, { max_tokens: 8 })).rejects.toThrow(
      /request\.max_tokens: must be an integer between 16 and 32768, got 8/,
    );
  });

  it('the provider itself refuses max_output_tokens below 16, and such a probe reads misconfigured, not down', async () => {
    // Through the http kind the config check is not in the way: the API's own floor answers.
    const model = `gpt-4.1-${++seq}`;
    const { event, prober } = await probeOnce(
      fake.openaiBaseUrl,
      'http',
      model,
      { path: '/responses', body: { model, input: 'ping', max_output_tokens: 8 } },
      { over: { key: { provider: 'openai', endpoint: 'responses', model } } },
    );
    expect(event).toMatchObject({ outcome: 'error', error_class: 'bad_request', status: 400 });
    expect(prober.stats.misconfigured).toBe(1);
    expect(last().body).toMatchObject({ max_output_tokens: 8 });
  });
});

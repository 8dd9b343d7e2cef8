/**
 * Each fault of the fake provider, probed through the real prober and undici, gives
 * the outcome and taxonomy class docs/architecture.md gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { Prober } from '../../probe/prober.ts';
import type { ProbeEvent } from '@breakerbox/protocol';
import { API_KEY, captureLogger, configOf, ManualScheduler, rawTarget } from './helpers.ts';

let fake: FakeProvider;
let seq = 0;

beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
});

type Kind = 'openai-chat' | 'anthropic-messages';

/** Probes once with `fault` scripted for a fresh model; returns the event and the log. */
async function probe(fault: Fault | undefined, opts: { kind?: Kind; stream?: boolean; ceiling?: number; key?: string } = {}) {
  const kind = opts.kind ?? 'openai-chat';
  const model = `m-${++seq}`;
  if (fault) fake.script(model, fault);
  const config = configOf({
    targets: [
      rawTarget(kind === 'openai-chat' ? fake.openaiBaseUrl : fake.anthropicBaseUrl, model, {
        kind,
        request: { stream: opts.stream ?? false },
        latency_ceiling_ms: opts.ceiling ?? 2_000,
        timeouts: { connect_ms: 500, first_byte_ms: 300, total_ms: 800 },
      }),
    ],
  });
  const events: ProbeEvent[] = [];
  const { log, lines } = captureLogger();
  const prober = new Prober({
    config,
    apiKeys: new Map([['PROBE_TEST_KEY', opts.key ?? API_KEY]]),
    sink: (e) => events.push(e),
    logger: log,
    scheduler: new ManualScheduler(),
  });
  const result = await prober.fire(model);
  expect(result.kind).toBe('probed');
  expect(events).toHaveLength(1);
  return { event: events[0] as ProbeEvent, lines, prober };
}

describe('healthy answers', () => {
  for (const kind of ['openai-chat', 'anthropic-messages'] as const) {
    for (const stream of [false, true]) {
      it(`${kind} ${stream ? 'streamed' : 'JSON'} is ok with connect, first byte and total measured`, async () => {
        const { event } = await probe(undefined, { kind, stream });
        expect(event).toMatchObject({ type: 'probe', outcome: 'ok', status: 200, location: 'eu-west' });
        expect(event.error_class).toBeUndefined();
        expect(event.latency_ms.connect).toBeTypeOf('number');
        expect(event.latency_ms.ttfb).toBeTypeOf('number');
        expect(event.latency_ms.total).toBeGreaterThanOrEqual(event.latency_ms.ttfb ?? 0);
      });
    }
  }

  it('an answer slower than the latency ceiling is slow, not ok', async () => {
    const { event } = await probe({ kind: 'ok', latencyMs: 120 }, { ceiling: 50 });
    expect(event.outcome).toBe('slow');
    expect(event.error_class).toBeUndefined();
  });

  it('sends the request shape of the product: model, prompt, small max_tokens, stream with usage', async () => {
    const before = fake.attempts.length;
    await probe(undefined, { stream: true });
    const attempt = fake.attempts[before];
    expect(attempt?.path).toBe('/v1/chat/completions');
    expect(attempt?.body).toMatchObject({ max_tokens: 8, stream: true, stream_options: { include_usage: true } });
    expect(attempt?.headers.authorization).not.toContain(API_KEY);
  });
});

describe('faults', () => {
  const cases: Array<{ name: string; fault: Fault; kind?: Kind; stream?: boolean; cls: string; status?: number }> = [
    { name: '429 rate limit', fault: { kind: 'rate_limit', retryAfter: 2 }, cls: 'rate_limit', status: 429 },
    { name: '429 insufficient_quota', fault: { kind: 'quota' }, cls: 'quota', status: 429 },
    { name: '529 overloaded (Anthropic)', fault: { kind: 'status', status: 529 }, kind: 'anthropic-messages', cls: 'server', status: 529 },
    { name: '529 overloaded (OpenAI-compatible)', fault: { kind: 'status', status: 529 }, cls: 'server', status: 529 },
    { name: '503', fault: { kind: 'status', status: 503 }, cls: 'server', status: 503 },
    { name: '502 with an HTML gateway page', fault: { kind: 'status', status: 502 }, cls: 'server', status: 502 },
    { name: 'connection reset before any header', fault: { kind: 'reset' }, cls: 'network' },
    { name: 'no response (first-byte timeout)', fault: { kind: 'no_response' }, cls: 'timeout' },
    { name: 'slow first token past the first-byte timeout', fault: { kind: 'slow_first_token', ms: 600 }, stream: true, cls: 'timeout', status: 200 },
    { name: 'stream stalled after two tokens (total timeout)', fault: { kind: 'stall', afterTokens: 2 }, stream: true, cls: 'timeout', status: 200 },
    { name: 'stream cut by a reset', fault: { kind: 'cut_stream', afterTokens: 2 }, stream: true, cls: 'stream_broken', status: 200 },
    { name: 'stream ended cleanly mid-answer', fault: { kind: 'cut_stream', afterTokens: 2, how: 'end' }, stream: true, cls: 'stream_broken', status: 200 },
    { name: 'stream without [DONE]', fault: { kind: 'no_end_event' }, stream: true, cls: 'stream_broken', status: 200 },
    { name: 'Anthropic stream without message_stop', fault: { kind: 'no_end_event' }, kind: 'anthropic-messages', stream: true, cls: 'stream_broken', status: 200 },
    { name: 'malformed stream chunk', fault: { kind: 'malformed_chunk', afterTokens: 1 }, stream: true, cls: 'stream_broken', status: 200 },
    { name: 'truncated (finish_reason length)', fault: { kind: 'finish_length' }, cls: 'truncated', status: 200 },
    { name: 'truncated stream (stop_reason max_tokens)', fault: { kind: 'finish_length' }, kind: 'anthropic-messages', stream: true, cls: 'truncated', status: 200 },
    { name: 'content filter finish', fault: { kind: 'content_filter' }, cls: 'policy', status: 200 },
    { name: '200 with a malformed JSON body', fault: { kind: 'malformed_chunk', afterTokens: 0 }, cls: 'server', status: 200 },
    { name: 'JSON body cut mid-way', fault: { kind: 'cut_stream', afterTokens: 0 }, cls: 'network', status: 200 },
    { name: '401', fault: { kind: 'status', status: 401 }, cls: 'auth', status: 401 },
    { name: '400', fault: { kind: 'status', status: 400 }, cls: 'bad_request', status: 400 },
    { name: '404 model not found', fault: { kind: 'model_not_found' }, cls: 'bad_request', status: 404 },
  ];
  for (const c of cases) {
    it(`${c.name} → error / ${c.cls}`, async () => {
      const { event } = await probe(c.fault, { kind: c.kind, stream: c.stream });
      expect(event.outcome).toBe('error');
      expect(event.error_class).toBe(c.cls);
      expect(event.status).toBe(c.status);
    });
  }
});

describe('misconfigured probes', () => {
  it('a wrong key is reported as auth and logged loudly, without the key', async () => {
    const wrong = 'sk-wrong-key-0000111122223333';
    const { event, lines, prober } = await probe(undefined, { key: wrong });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'auth', status: 401 });
    expect(prober.stats.misconfigured).toBe(1);
    const loud = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 'error');
    expect(String(loud?.msg)).toMatch(/MISCONFIGURED PROBE/);
    expect(lines.join('\n')).not.toContain(wrong);
  });

  it('a 400 is flagged misconfigured, a 503 is not', async () => {
    const bad = await probe({ kind: 'status', status: 400 });
    const down = await probe({ kind: 'status', status: 503 });
    expect(bad.prober.stats.misconfigured).toBe(1);
    expect(down.prober.stats.misconfigured).toBe(0);
    expect(down.lines.some((l) => l.includes('MISCONFIGURED'))).toBe(false);
  });
});

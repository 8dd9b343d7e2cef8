/**
 * Evidence samples in the SDK: failed and slow attempts of a window are kept (bounded in
 * count and bytes, varied classes first) and sent with it; successes cost nothing; no
 * prompt or answer text and no secret in the message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WINDOW_SAMPLES_BYTES, type CallSample, type WindowEvent } from '@breakerbox/protocol';
import { BreakerboxError, createBreakerbox, SDK_ERROR_CODES, type Breakerbox } from '../../sdk/index.ts';
import { KeySamples } from '../../sdk/telemetry/key-samples.ts';
import { buildSample } from '../../sdk/telemetry/call-sample.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const PROMPT = 'PROMPT-TEXT-never-leaves';

/** An error shaped like the official openai client's APIError (status, headers, parsed body, requestID). */
function apiError(status: number, body: Record<string, unknown>, requestId: string): Error {
  return Object.assign(new Error(`${status} ${String((body as { message?: string }).message)}`), {
    status,
    headers: new Headers({ 'x-request-id': requestId }),
    error: body,
    requestID: requestId,
  });
}

let bb: Breakerbox | undefined;
afterEach(async () => {
  await bb?.close(10);
  bb = undefined;
});

function sdk(clock: ManualClock, telemetry: Record<string, unknown> | null = {}) {
  bb = createBreakerbox({
    // The options check allows a clock's three methods only.
    clock: { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (h) => clock.clearTimeout(h) },
    defaults: { retry: { maxAttempts: 1 }, breaker: { latencyCeilingMs: 1_000, minCalls: 1_000, consecutiveFailures: 0 } },
    ...(telemetry ? { telemetry: { url: 'http://127.0.0.1:9', service: 'drafts', intervalMs: 3_600_000, ...telemetry } } : {}),
  });
  return bb;
}

const windowOf = (events: ReturnType<Breakerbox['collect']>) => events.find((e): e is WindowEvent => e.type === 'window');

describe('samples kept by the SDK', () => {
  it('sends a failed call\'s time, status, provider error, request id, attempt and duration, with the message redacted', async () => {
    const clock = new ManualClock();
    const b = sdk(clock);
    const t0 = clock.now();
    const failing = async () => {
      await clock.advance(420);
      throw apiError(503, { type: 'overloaded_error', code: 'overloaded', message: `Overloaded for key sk-proj-AbCdEf0123456789AbCdEf01, contact jane@corp.example (${PROMPT.length})` }, 'req_abc123');
    };
    await expect(b.execute(KEY, failing)).rejects.toThrow();
    const w = windowOf(b.collect())!;
    expect(w.samples).toEqual([{
      ts: t0 + 420, outcome: 'error', error_class: 'server', status: 503, error_type: 'overloaded_error', error_code: 'overloaded',
      message: 'Overloaded for key [redacted], contact [redacted] (24)', upstream_request_id: 'req_abc123', attempt: 1, duration_ms: 420,
    }]);
    expect(JSON.stringify(w)).not.toContain(PROMPT);
  });

  it('samples a slow success with its facts, and nothing for a fast one', async () => {
    const clock = new ManualClock();
    const b = sdk(clock);
    const facts = () => ({ inputTokens: 12, outputTokens: 3, finishReason: 'stop', upstreamRequestId: 'req_slow', modelServed: 'gpt-4o-mini-2024-07-18' });
    await b.execute(KEY, async () => { await clock.advance(50); return 'fast'; }, { facts });
    expect(windowOf(b.collect())!.samples).toBeUndefined();
    await b.execute(KEY, async () => { await clock.advance(2_500); return 'slow'; }, { facts });
    const samples = windowOf(b.collect())!.samples!;
    expect(samples).toHaveLength(1);
    const s = samples[0];
    expect(s).toMatchObject({ outcome: 'slow', duration_ms: 2_500, upstream_request_id: 'req_slow', model_served: 'gpt-4o-mini-2024-07-18', input_tokens: 12, output_tokens: 3, finish_reason: 'stop' });
    expect(s!.error_class).toBeUndefined();
  });

  it('keeps at most the configured count per window, rarer classes first, refreshes a kept class at most once a second, and starts empty in the next window', async () => {
    const clock = new ManualClock();
    const b = sdk(clock, { samplesPerWindow: 3 });
    // A failure onset first (its window is sent at once): the window after it is no onset, so it holds every call below.
    for (let i = 0; i < 2; i++) await expect(b.execute(KEY, async () => { throw apiError(503, { message: 'busy' }, 'req_before'); })).rejects.toThrow();
    const timeout = new BreakerboxError(SDK_ERROR_CODES.TIMEOUT, 'no first token within 5000 ms', { errorClass: 'timeout', providerReason: 'first_token' });
    await expect(b.execute(KEY, async () => { await clock.advance(5); throw timeout; })).rejects.toThrow();
    for (let i = 0; i < 50; i++) {
      await expect(b.execute(KEY, async () => { await clock.advance(5); throw apiError(503, { message: 'busy' }, `req_${i}`); })).rejects.toThrow();
    }
    // Full within 250 ms: the same class is not rebuilt until a second has passed, then the newest replaces the oldest.
    await clock.advance(1_000);
    await expect(b.execute(KEY, async () => { throw apiError(503, { message: 'busy' }, 'req_late'); })).rejects.toThrow();
    const w = windowOf(b.collect())!;
    expect(w.calls).toBe(52);
    expect(w.samples!.map((s) => s.upstream_request_id ?? s.error_class)).toEqual(['timeout', 'req_1', 'req_late']);
    await expect(b.execute(KEY, async () => { throw apiError(500, { message: 'x' }, 'req_next'); })).rejects.toThrow();
    expect(windowOf(b.collect())!.samples!.map((s) => s.upstream_request_id)).toEqual(['req_next']);
  });

  it('keeps no samples without a collector, and none with samplesPerWindow 0', async () => {
    for (const telemetry of [null, { samplesPerWindow: 0 }]) {
      const clock = new ManualClock();
      const b = sdk(clock, telemetry);
      await expect(b.execute(KEY, async () => { throw apiError(503, { message: 'busy' }, 'req_1'); })).rejects.toThrow();
      expect(windowOf(b.collect())!.samples).toBeUndefined();
    }
  });

  it('refuses a sample setting outside its bounds when the SDK is created, naming the field', () => {
    const clock = new ManualClock();
    expect(() => sdk(clock, { samplesPerWindow: 11 })).toThrow(expect.objectContaining({ field: 'telemetry.samplesPerWindow' }));
    expect(() => sdk(clock, { sampleBytesPerWindow: 100_000 })).toThrow(expect.objectContaining({ field: 'telemetry.sampleBytesPerWindow' }));
  });
});

describe('KeySamples', () => {
  const sample = (i: number, cls: CallSample['error_class'], message = ''): CallSample =>
    ({ ts: i, outcome: 'error', error_class: cls, attempt: 1, duration_ms: 1, upstream_request_id: `req_${i}`, ...(message ? { message } : {}) });

  it('stays within its byte cap whatever arrives, as the collector would check it', () => {
    const kept = new KeySamples({ count: 10, bytes: 1_024 });
    for (let i = 0; i < 1_000; i++) kept.offer(sample(i, i % 7 === 0 ? 'timeout' : 'server', 'm'.repeat(i % 300)));
    const out = kept.drain()!;
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(1_024);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(MAX_WINDOW_SAMPLES_BYTES);
    expect(out.at(-1)!.ts).toBe(999);
    expect(new Set(out.map((s) => s.error_class))).toEqual(new Set(['server', 'timeout']));
    expect(kept.size).toBe(0);
  });

  it('asks for a sample only while there is room, for a new class, or once the refresh interval passed', () => {
    const kept = new KeySamples({ count: 2, bytes: 8_192 });
    kept.offer(sample(1_000, 'server'));
    expect(kept.wants('server', 1_001)).toBe(true); // room left
    kept.offer(sample(1_001, 'server'));
    expect(kept.wants('server', 1_500)).toBe(false);
    expect(kept.wants('timeout', 1_500)).toBe(true);
    expect(kept.wants('server', 2_001)).toBe(true);
    expect(new KeySamples({ count: 0, bytes: 8_192 }).wants('server', 0)).toBe(false);
  });

  it('keeps one of each class before a second of any', () => {
    const kept = new KeySamples({ count: 3, bytes: 8_192 });
    for (const [i, cls] of (['server', 'server', 'server', 'rate_limit', 'server', 'network'] as const).entries()) kept.offer(sample(i, cls));
    expect(kept.drain()!.map((s) => s.error_class)).toEqual(['rate_limit', 'server', 'network']);
  });
});

describe('buildSample', () => {
  it('reads our fetch wrapper\'s provider answer: Anthropic request-id, error type and message', () => {
    const err = Object.assign(new BreakerboxError(SDK_ERROR_CODES.PROVIDER_ERROR, 'provider answered 529', { errorClass: 'server', status: 529 }), {
      answer: { status: 529, headers: new Headers({ 'request-id': 'req_011CV8qJ' }), body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    });
    expect(buildSample({ end: 2_000, start: 1_000, cls: 'server', attempt: 2, level: 1, stream: true, err, facts: undefined })).toEqual({
      ts: 2_000, outcome: 'error', error_class: 'server', attempt: 2, level: 1, stream: true, duration_ms: 1_000, sdk_code: 'BB_ERR_SDK_PROVIDER_ERROR',
      status: 529, upstream_request_id: 'req_011CV8qJ', error_type: 'overloaded_error', message: 'Overloaded',
    });
  });

  it('says where a stream broke: after its first token when one came', () => {
    const facts = { ttftMs: 300, outputTokens: 40, upstreamRequestId: 'req_s' };
    expect(buildSample({ end: 5_000, start: 0, cls: 'stream_broken', attempt: 1, level: undefined, stream: true, err: undefined, facts })).toMatchObject({
      broke_at: 'after_first_token', ttft_ms: 300, output_tokens: 40, upstream_request_id: 'req_s',
    });
    expect(buildSample({ end: 5_000, start: 0, cls: 'timeout', attempt: 1, level: undefined, stream: true, err: undefined, facts: undefined }).broke_at).toBe('before_first_token');
  });

  it('survives an error object whose getters throw', () => {
    const hostile = Object.defineProperty(new Error('x'), 'status', { get() { throw new Error('boom'); } });
    expect(buildSample({ end: 1, start: 0, cls: 'network', attempt: 1, level: undefined, stream: false, err: hostile, facts: undefined })).toMatchObject({ outcome: 'error', error_class: 'network' });
  });
});

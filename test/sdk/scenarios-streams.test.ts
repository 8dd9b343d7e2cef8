/**
 * Stream scenarios over real HTTP through the official `openai` client with the SDK's
 * fetch. Durations are scaled down: a 20 s first token becomes a 2 s delay against a
 * 300 ms first-token limit; stall/idle limits are 200 ms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readStream, rig, sdkError, streamed as streamedOf, type Rig } from './scenario-helpers.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
let r: Rig;
afterEach(async () => r?.close());

const streamed = (model: string) => streamedOf(r, model);


describe('scenario: streams', () => {
  it('fails over when the first token misses its limit (20 s scaled: 2 s delay vs a 300 ms limit)', async () => {
    r = await rig({ timeouts: { firstTokenMs: 300 }, fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'slow_first_token', ms: 2_000 }, { persistent: true });
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe('The quick brown fox jumps over the lazy');
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(1);
    expect(r.fake.attemptsFor(FALLBACK)).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, level: 2, model: FALLBACK, attempts: 2 });
    expect(r.calls[0]!.ttftMs).toBeGreaterThanOrEqual(0);
  });

  it('with midStream: error, never reports a stream cut after 40 of 60 tokens as a success', async () => {
    r = await rig({ midStream: 'error' });
    r.fake.script(PRIMARY, { kind: 'cut_stream', afterTokens: 40, tokens: 60 });
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeDefined();
    expect(sdkError(out.error)?.errorClass).toBe('stream_broken');
    expect(out.text.split(' ').length).toBeLessThan(60);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'stream_broken' });
    const w = r.bb.collect().find((e) => e.type === 'window');
    expect(w).toMatchObject({ ok: 0, errors: { stream_broken: 1 } });
  });

  it('with midStream: error, ends a stalled stream with the idle timeout (stall scaled to a 200 ms idle limit)', async () => {
    r = await rig({ timeouts: { idleMs: 200 }, midStream: 'error' });
    r.fake.script(PRIMARY, { kind: 'stall', afterTokens: 3 });
    const out = await readStream(await streamed(PRIMARY));
    expect(sdkError(out.error)?.message).toMatch(/idle/);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'stream_broken' });
    // The stalled connection was released, not left hanging.
    await new Promise((res) => setTimeout(res, 20));
    expect(r.fake.attempts[0]!.clientAborted).toBe(true);
  });

  it('skips a malformed chunk by default and counts it; fails cleanly with malformedChunks: error; the process stays up', async () => {
    r = await rig();
    r.fake.script(PRIMARY, { kind: 'malformed_chunk', afterTokens: 2 });
    const skipped = await readStream(await streamed(PRIMARY));
    expect(skipped.error).toBeUndefined();
    expect(skipped.text).toBe('The quick brown fox jumps over the lazy');
    expect(r.calls[0]).toMatchObject({ ok: true });
    expect(r.bb.collect().find((e) => e.type === 'window')).toMatchObject({ ok: 1, skipped_chunks: 1 });
    await r.close();

    r = await rig({ malformedChunks: 'error', midStream: 'error' });
    r.fake.script(PRIMARY, { kind: 'malformed_chunk', afterTokens: 2 });
    const out = await readStream(await streamed(PRIMARY));
    expect(sdkError(out.error)?.message).toMatch(/malformed/);
    expect(r.bb.collect().find((e) => e.type === 'window')).not.toHaveProperty('skipped_chunks');
  });

  it('finalises a complete stream without [DONE] promptly and still reports usage', async () => {
    r = await rig({ timeouts: { idleMs: 5_000 } });
    r.fake.script(PRIMARY, { kind: 'no_end_event', keepOpen: true });
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.usage).toMatchObject({ completion_tokens: 8 });
    expect(r.calls[0]).toMatchObject({ ok: true, outputTokens: 8, finishReason: 'stop' });
    expect(r.calls[0]!.durationMs).toBeLessThan(5_000);
  });

  it('records a finish_reason of length as truncated, never a success', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'finish_length' }]);
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'truncated', finishReason: 'length' });
    expect(r.bb.collect().find((e) => e.type === 'window')).toMatchObject({ ok: 0, errors: { truncated: 1 } });
  });
});

describe('scenario: Anthropic streams through the official client', () => {
  it('reads usage from message_start / message_delta and finalises a stream missing message_stop', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    r = await rig();
    const anthropic = new Anthropic({ baseURL: r.fake.anthropicBaseUrl, apiKey: r.fake.apiKey, maxRetries: 0, fetch: r.bb.fetch() });
    r.fake.script('claude-sonnet-4', [{ kind: 'ok' }, { kind: 'no_end_event', keepOpen: true }]);
    for (let i = 0; i < 2; i++) {
      const stream = await anthropic.messages.create({ model: 'claude-sonnet-4', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      for await (const ev of stream) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
      expect(text).toBe('The quick brown fox jumps over the lazy');
    }
    expect(r.calls.map((c) => [c.ok, c.outputTokens, c.finishReason, c.provider])).toEqual([
      [true, 8, 'end_turn', expect.stringMatching(/^127\.0\.0\.1:/)],
      [true, 8, 'end_turn', expect.stringMatching(/^127\.0\.0\.1:/)],
    ]);
    expect(r.calls[0]!.inputTokens).toBeGreaterThan(0);
    expect(r.calls[0]!.endpoint).toBe('messages');
  });
});

/**
 * The OpenAI Responses API through the official client and `bb.fetch`, streamed and not:
 * complete answers pass intact, incomplete ones are never successes, mid-stream failures
 * are classified, rescued or failed over, and usage (reasoning tokens included) feeds
 * cost. Durations scaled down as in the chat scenarios (300 ms first token, 200 ms idle).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readResponses, responsesStreamed, rig, sdkError, type Rig } from './scenario-helpers.ts';

const PRIMARY = 'gpt-4.1';
const FALLBACK = 'gpt-4.1-mini';
const WHOLE = 'The quick brown fox jumps over the lazy';
let r: Rig;
afterEach(async () => r?.close());

describe('scenario: Responses API', () => {
  it('passes a complete stream intact, ending with response.completed, and reports it ok with usage and cost', async () => {
    r = await rig();
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    expect(out.types.at(-1)).toBe('response.completed');
    expect(out.final?.status).toBe('completed');
    expect(r.calls[0]).toMatchObject({ ok: true, endpoint: 'responses', attempts: 1, outputTokens: 8, finishReason: 'completed' });
    expect(r.calls[0]!.costUsd).toBeGreaterThan(0);
    expect(r.calls[0]!.ttftMs).toBeGreaterThanOrEqual(0);
  });

  it('counts a reasoning model\'s hidden tokens in usage and cost, streamed and not', async () => {
    r = await rig();
    const out = await readResponses(await responsesStreamed(r, 'o4-mini'));
    expect(out.text).toBe(WHOLE);
    const json = await r.client.responses.create({ model: 'o4-mini', input: 'hi', reasoning: { effort: 'high' } });
    expect(json.output_text).toBe(WHOLE);
    expect(r.calls.map((c) => [c.ok, c.outputTokens, c.reasoningTokens])).toEqual([
      [true, 24, 16],
      [true, 40, 32],
    ]);
    // o4-mini lists at $4.40 per million output tokens: the reasoning tokens are billed.
    expect(r.calls[1]!.costUsd).toBeGreaterThan((40 * 4.4) / 1e6);
  });

  it('never counts a non-streamed status "incomplete" (max_output_tokens) as a success', async () => {
    r = await rig();
    const res = await r.client.responses.create({ model: PRIMARY, input: 'hi', max_output_tokens: 3 });
    expect(res.status).toBe('incomplete');
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'truncated', finishReason: 'max_output_tokens' });
  });

  it('reads a streamed response.incomplete as truncated (max_output_tokens) or policy (content_filter), handing the events through', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'finish_length' }, { kind: 'content_filter' }]);
    const cut = await readResponses(await responsesStreamed(r, PRIMARY));
    const filtered = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(cut.types.at(-1)).toBe('response.incomplete');
    expect(filtered.final?.incomplete_details?.reason).toBe('content_filter');
    expect(r.calls.map((c) => [c.ok, c.errorClass])).toEqual([
      [false, 'truncated'],
      [false, 'policy'],
    ]);
  });

  it('fails over when the first delta misses its limit (slow first token, persistent)', async () => {
    r = await rig({ timeouts: { firstTokenMs: 300 }, fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'slow_first_token', ms: 2_000 }, { persistent: true });
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.text).toBe(WHOLE);
    expect(r.calls[0]).toMatchObject({ ok: true, model: FALLBACK, level: 2 });
  });

  it('rescues a stream cut after its first deltas so the caller reads one whole answer, once', async () => {
    r = await rig();
    r.fake.script(PRIMARY, { kind: 'cut_stream', afterTokens: 3 });
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    expect(out.types.filter((t) => t === 'response.created')).toHaveLength(1);
    expect(out.types.at(-1)).toBe('response.completed');
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 1, attempts: 2 });
  });

  it('rescues a stall (idle limit) and a response.failed event; an error event with a client-fault code is not rescued', async () => {
    r = await rig({ timeouts: { idleMs: 200 } });
    r.fake.script(PRIMARY, [{ kind: 'stall', afterTokens: 2 }, { kind: 'ok' }, { kind: 'stream_error', afterTokens: 4 }, { kind: 'ok' }]);
    const stalled = await readResponses(await responsesStreamed(r, PRIMARY));
    const failed = await readResponses(await responsesStreamed(r, PRIMARY));
    expect([stalled.text, failed.text]).toEqual([WHOLE, WHOLE]);
    expect(r.calls.map((c) => c.rescues)).toEqual([1, 1]);
    r.fake.script(PRIMARY, { kind: 'stream_error', afterTokens: 2, as: 'error', code: 'invalid_prompt' });
    const refused = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(sdkError(refused.error)?.errorClass).toBe('policy');
    expect(r.calls[2]).toMatchObject({ ok: false, errorClass: 'policy' });
  });

  it('rescues a stream whose terminal event never comes (connection left open): the caller gets response.completed once', async () => {
    r = await rig({ timeouts: { idleMs: 200 } });
    r.fake.script(PRIMARY, { kind: 'no_end_event', keepOpen: true });
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    expect(out.types.filter((t) => t === 'response.output_text.done')).toHaveLength(1);
    expect(out.types.at(-1)).toBe('response.completed');
  });

  it('serves a cut repeated on every primary attempt from the fallback, within the rescue budget', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'cut_stream', afterTokens: 4 }, { persistent: true });
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(2);
    expect(r.fake.attemptsFor(FALLBACK)).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 2, model: FALLBACK });
  });

  it('rescues a reasoning model\'s stream cut in its text: one reasoning item, the text once', async () => {
    r = await rig();
    r.fake.script('o4-mini', { kind: 'cut_stream', afterTokens: 3 });
    const out = await readResponses(await responsesStreamed(r, 'o4-mini'));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    expect(out.types.filter((t) => t === 'response.output_item.added')).toHaveLength(2); // reasoning + message, once each
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 1, reasoningTokens: 16 });
  });

  it('with midStream: buffer, hands over only a complete Responses stream', async () => {
    r = await rig({ midStream: 'buffer' });
    r.fake.script(PRIMARY, { kind: 'cut_stream', afterTokens: 5 });
    const out = await readResponses(await responsesStreamed(r, PRIMARY));
    expect(out.text).toBe(WHOLE);
    expect(out.types.filter((t) => t === 'response.created')).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2 });
  });

  it('fails a non-streamed status "failed" over to the fallback', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'stream_error', afterTokens: 0 }, { persistent: true });
    const res = await r.client.responses.create({ model: PRIMARY, input: 'hi', stream: false });
    expect(res.output_text).toBe(WHOLE);
    expect(r.calls[0]).toMatchObject({ ok: true, model: FALLBACK });
  });
});

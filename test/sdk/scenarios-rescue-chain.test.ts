/**
 * Rescue falls through the fallback chain: a primary that breaks the same answer on every
 * attempt (a cut at the same point, a stall) hands the rest of the rescue budget to the
 * next level, for chat, Responses and Anthropic streams through the official clients.
 * Idle limits scaled to 200 ms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageText, readMessages, readResponses, readStream, responsesStreamed, rig, sdkError, streamed, type Rig } from './scenario-helpers.ts';
import { SDK_ERROR_CODES } from '../../sdk/index.ts';

const WHOLE = 'The quick brown fox jumps over the lazy';
let r: Rig;
afterEach(async () => r?.close());

describe('rescue falls through the chain', () => {
  it('chat: serves a cut after 4 tokens on every primary attempt from the fallback, each word once', async () => {
    r = await rig({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    r.fake.script('gpt-4o', { kind: 'cut_stream', afterTokens: 4 }, { persistent: true });
    const out = await readStream(await streamed(r, 'gpt-4o'));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(WHOLE);
    // The primary served, broke, got one rescue, broke the same way; the fallback finished.
    expect(r.fake.attempts.map((a) => a.model)).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o-mini']);
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 2, model: 'gpt-4o-mini', level: 2 });
  });

  it('chat: serves a stall repeated on every primary attempt from the fallback', async () => {
    r = await rig({ timeouts: { idleMs: 200 }, fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    r.fake.script('gpt-4o', { kind: 'stall', afterTokens: 3 }, { persistent: true });
    const out = await readStream(await streamed(r, 'gpt-4o'));
    expect(out.text).toBe(WHOLE);
    expect(r.calls[0]).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
  });

  it('with maxRescues: 1 the primary keeps its one rescue and the answer fails cleanly', async () => {
    r = await rig({ maxRescues: 1, fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    r.fake.script('gpt-4o', { kind: 'cut_stream', afterTokens: 4 }, { persistent: true });
    const out = await readStream(await streamed(r, 'gpt-4o'));
    expect(sdkError(out.error)?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN);
    expect(sdkError(out.error)?.message).toMatch(/1 rescue used up/);
    expect(r.fake.attemptsFor('gpt-4o-mini')).toHaveLength(0);
  });

  it('Responses: a cut repeated on every primary attempt is finished by the fallback', async () => {
    r = await rig({ fallbacks: { 'gpt-4.1': [{ model: 'gpt-4.1-mini' }] } });
    r.fake.script('gpt-4.1', { kind: 'cut_stream', afterTokens: 5 }, { persistent: true });
    const out = await readResponses(await responsesStreamed(r, 'gpt-4.1'));
    expect(out.text).toBe(WHOLE);
    expect(out.final?.status).toBe('completed');
    expect(r.calls[0]).toMatchObject({ ok: true, model: 'gpt-4.1-mini' });
  });

  it('Anthropic: a cut repeated on every primary attempt (prefill continuations included) is finished by the fallback', async () => {
    r = await rig({ fallbacks: { 'claude-sonnet-4': [{ model: 'claude-3-5-haiku' }] } });
    r.fake.script('claude-sonnet-4', { kind: 'cut_stream', afterTokens: 3 }, { persistent: true });
    const out = await readMessages(r.anthropic.messages.stream({ model: 'claude-sonnet-4', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] }));
    expect(out.error).toBeUndefined();
    expect(messageText(out.final)).toBe(WHOLE);
    expect(r.calls[0]).toMatchObject({ ok: true, model: 'claude-3-5-haiku' });
  });
});

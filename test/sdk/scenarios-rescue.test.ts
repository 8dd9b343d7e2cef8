/**
 * Mid-stream rescue over real HTTP through the official clients with the SDK's fetch: a
 * stream that breaks after its first token reaches the caller as one complete answer —
 * never repeated or contradictory text — or as the clean `BB_ERR_SDK_STREAM_BROKEN`.
 * Idle limits are scaled down to 200 ms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { readStream, rig, sdkError, streamed as streamedOf, type Rig } from './scenario-helpers.ts';
import { SDK_ERROR_CODES, type WindowEvent } from '../../sdk/index.ts';
import { tokenText } from '../support/fake-provider-bodies.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
const CLAUDE = 'claude-sonnet-4';
let r: Rig;
afterEach(async () => r?.close());

function words(n: number, shift = 0): string {
  let s = '';
  for (let i = 0; i < n; i++) s += tokenText(i + shift);
  return s;
}

const streamed = (model: string) => streamedOf(r, model);


function windows(): WindowEvent[] {
  return r.bb.collect().filter((e): e is WindowEvent => e.type === 'window');
}

async function readAnthropic(anthropic: Anthropic, model: string) {
  const stream = await anthropic.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  let error: unknown;
  try {
    for await (const ev of stream) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
  } catch (e) {
    error = e;
  }
  return { text, error };
}

describe('mid-stream rescue: OpenAI-compatible streams (regeneration checked against what was delivered)', () => {
  it('turns a stream cut after 40 of 60 tokens into one complete answer, each word once', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'cut_stream', afterTokens: 40, tokens: 60 }, { kind: 'ok', tokens: 60 }]);
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(words(60));
    expect(out.usage).toMatchObject({ completion_tokens: 60 });
    expect(r.fake.attemptsFor(PRIMARY).map((a) => a.tokensSent)).toEqual([40, 60]);
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2, level: 0, rescues: 1 });
    // The break is still the provider's: counted against the key, next to the rescue's success.
    expect(windows()[0]).toMatchObject({ calls: 2, ok: 1, errors: { stream_broken: 1 } });
  });

  it('rescues a stream that stalls after 20 tokens once the idle limit ends it (idle scaled to 200 ms)', async () => {
    r = await rig({ timeouts: { idleMs: 200 } });
    r.fake.script(PRIMARY, [{ kind: 'stall', afterTokens: 20, tokens: 30 }, { kind: 'ok', tokens: 30 }]);
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(words(30));
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2 });
  });

  it('rescues on the fallback when the primary keeps failing, and the task is served by the fallback level', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, [{ kind: 'cut_stream', afterTokens: 5, tokens: 12 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }]);
    r.fake.script(FALLBACK, { kind: 'ok', tokens: 12 });
    const out = await readStream(await streamed(PRIMARY));
    expect(out.text).toBe(words(12));
    expect(r.calls[0]).toMatchObject({ ok: true, level: 2, model: FALLBACK, attempts: 5 });
  });

  it('abandons a regeneration that contradicts the delivered text and ends with the clean error', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [
      { kind: 'cut_stream', afterTokens: 6, tokens: 12 },
      { kind: 'ok', tokens: 12, textShift: 3 },
      { kind: 'ok', tokens: 4 }, // ends inside the delivered text: no use either
    ]);
    const out = await readStream(await streamed(PRIMARY));
    const e = sdkError(out.error);
    expect(e?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN);
    expect(e?.message).toMatch(/not rescued: 2 rescues used up/);
    expect(out.text).toBe(words(6)); // nothing of the contradicting answers reached the caller
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'stream_broken' });
  });

  it('does not rescue a caller who stops reading, and releases the upstream', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'ok', tokens: 40, tokenIntervalMs: 5 }]);
    const stream = await streamed(PRIMARY);
    let n = 0;
    for await (const _ of stream) if (++n === 5) break;
    await new Promise((res) => setTimeout(res, 50));
    expect(r.fake.attempts).toHaveLength(1);
    expect(r.fake.attempts[0]!.clientAborted).toBe(true);
    expect(r.calls[0]).toMatchObject({ ok: false });
    expect(r.calls[0]!.errorClass).toBeUndefined(); // a caller giving up is not held against anyone
  });

  it('keeps the clean error when rescue is turned off by maxRescues: 0', async () => {
    r = await rig({ maxRescues: 0 });
    r.fake.script(PRIMARY, [{ kind: 'cut_stream', afterTokens: 3, tokens: 8 }]);
    const out = await readStream(await streamed(PRIMARY));
    expect(sdkError(out.error)?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN);
    expect(r.fake.attempts).toHaveLength(1);
  });
});

describe('mid-stream rescue: Anthropic streams (continuation by assistant prefill)', () => {
  it('continues a cut stream from the delivered text through the official anthropic client', async () => {
    r = await rig();
    const anthropic = new Anthropic({ baseURL: r.fake.anthropicBaseUrl, apiKey: r.fake.apiKey, maxRetries: 0, fetch: r.bb.fetch() });
    r.fake.script(CLAUDE, [{ kind: 'cut_stream', afterTokens: 7, tokens: 20 }, { kind: 'ok', tokens: 20 }]);
    const out = await readAnthropic(anthropic, CLAUDE);
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(words(20));
    const [first, second] = r.fake.attemptsFor(CLAUDE);
    const messages = (second!.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: words(7).trimEnd() });
    expect([first!.tokensSent, second!.tokensSent]).toEqual([7, 13]); // only the rest was generated again
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2 });
  });

  it('regenerates when the route rejects prefill, and reports the rejection instead of masking it', async () => {
    r = await rig();
    const warnings: string[] = [];
    r.bb.onWarning((w) => warnings.push(w));
    const anthropic = new Anthropic({ baseURL: r.fake.anthropicBaseUrl, apiKey: r.fake.apiKey, maxRetries: 0, fetch: r.bb.fetch() });
    r.fake.script(CLAUDE, [{ kind: 'cut_stream', afterTokens: 4, tokens: 10 }, { kind: 'no_prefill', tokens: 10 }, { kind: 'no_prefill', tokens: 10 }]);
    const out = await readAnthropic(anthropic, CLAUDE);
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(words(10));
    expect(r.fake.attemptsFor(CLAUDE).map((a) => a.status)).toEqual([200, 400, 200]);
    expect(warnings.some((w) => /rejected assistant prefill/.test(w))).toBe(true);
    expect(windows()[0]).toMatchObject({ errors: { stream_broken: 1, bad_request: 1 }, ok: 1 });
  });
});

describe('buffered mode (midStream: buffer)', () => {
  it('hands over only complete answers, so a cut is retried before the caller reads anything', async () => {
    r = await rig({ midStream: 'buffer' });
    r.fake.script(PRIMARY, [{ kind: 'cut_stream', afterTokens: 10, tokens: 16 }, { kind: 'ok', tokens: 16 }]);
    const out = await readStream(await streamed(PRIMARY));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(words(16));
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2 });
    expect(windows()[0]).toMatchObject({ calls: 2, ok: 1, retries: 1, errors: { stream_broken: 1 } });
  });
});

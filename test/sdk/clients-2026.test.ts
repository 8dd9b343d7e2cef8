/**
 * The clients users install in December 2026, with `bb.fetch` as their fetch, against the
 * fake provider: the Vercel AI SDK (`ai@7` with `@ai-sdk/openai@4` — `openai(…)` is the
 * Responses API, `openai.chat(…)` chat completions — and `@ai-sdk/anthropic@4`) and
 * LangChain's `ChatOpenAI`. A primary answering 503 every time is answered by the configured
 * fallback, streams included, and every call is keyed exactly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateText, streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { createBreakerbox, type BreakerboxFetchOptions, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { FAST_RETRY } from './scenario-helpers.ts';

let closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closing) await c();
  closing = [];
});

async function clientRig(fetchOptions: BreakerboxFetchOptions) {
  const fake: FakeProvider = await startFakeProvider({ tokens: 6 });
  const bb = createBreakerbox({ defaults: { retry: FAST_RETRY } });
  closing.push(() => bb.close(100), () => fake.close());
  const calls: CallEvent[] = [];
  bb.onCall((e) => calls.push(e));
  bb.onWarning(() => undefined);
  return { fake, bb, calls, fetch: bb.fetch(fetchOptions), provider: `127.0.0.1:${new URL(fake.url).port}` };
}

describe('the Vercel AI SDK (ai@7) through bb.fetch', () => {
  it('answers a Responses-API generateText from the fallback when the primary answers 503 every time', async () => {
    const r = await clientRig({ fallbacks: { 'gpt-4.1': [{ model: 'gpt-4.1-mini' }] } });
    r.fake.script('gpt-4.1', { kind: 'status', status: 503 }, { persistent: true });
    const openai = createOpenAI({ baseURL: r.fake.openaiBaseUrl, apiKey: r.fake.apiKey, fetch: r.fetch });
    const out = await generateText({ model: openai('gpt-4.1'), prompt: 'hi', maxRetries: 0 });
    expect(out.text.length).toBeGreaterThan(0);
    expect(r.fake.attempts.map((a) => `${a.path} ${a.model} ${a.status ?? 200}`)).toContain('/v1/responses gpt-4.1-mini 200');
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, provider: r.provider, endpoint: 'responses', model: 'gpt-4.1-mini' });
  });

  it('streams chat completions (openai.chat) from the fallback, whole', async () => {
    const r = await clientRig({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    r.fake.script('gpt-4o', { kind: 'status', status: 503 }, { persistent: true });
    const openai = createOpenAI({ baseURL: r.fake.openaiBaseUrl, apiKey: r.fake.apiKey, fetch: r.fetch });
    const res = streamText({ model: openai.chat('gpt-4o'), prompt: 'hi', maxRetries: 0 });
    let text = '';
    for await (const t of res.textStream) text += t;
    expect(text.length).toBeGreaterThan(0);
    expect(await res.finishReason).toBe('stop');
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, endpoint: 'chat', model: 'gpt-4o-mini' });
  });

  it('answers @ai-sdk/anthropic messages from the fallback model', async () => {
    const r = await clientRig({ fallbacks: { 'claude-sonnet-4-5': [{ model: 'claude-haiku-4-5' }] } });
    r.fake.script('claude-sonnet-4-5', { kind: 'status', status: 529 }, { persistent: true });
    const anthropic = createAnthropic({ baseURL: `${r.fake.url}/v1`, apiKey: r.fake.apiKey, fetch: r.fetch });
    const res = streamText({ model: anthropic('claude-sonnet-4-5'), prompt: 'hi', maxRetries: 0 });
    let text = '';
    for await (const t of res.textStream) text += t;
    expect(text.length).toBeGreaterThan(0);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, endpoint: 'messages', model: 'claude-haiku-4-5' });
  });
});

describe("LangChain's ChatOpenAI through configuration.fetch", () => {
  it('answers invoke and stream from the fallback when the primary answers 503 every time', async () => {
    const r = await clientRig({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    r.fake.script('gpt-4o', { kind: 'status', status: 503 }, { persistent: true });
    const chat = new ChatOpenAI({ model: 'gpt-4o', apiKey: r.fake.apiKey, maxRetries: 0, configuration: { baseURL: r.fake.openaiBaseUrl, fetch: r.fetch } });
    const msg = await chat.invoke('hi');
    expect(String(msg.content).length).toBeGreaterThan(0);
    let streamed = '';
    for await (const chunk of await chat.stream('hi')) streamed += String(chunk.content);
    expect(streamed.length).toBeGreaterThan(0);
    expect(r.calls.map((c) => `${c.ok} ${c.level} ${c.endpoint} ${c.model}`)).toEqual(['true 2 chat gpt-4o-mini', 'true 2 chat gpt-4o-mini']);
  });
});

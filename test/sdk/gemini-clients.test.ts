/**
 * The Gemini API and Vertex AI through `bb.fetch` and the real clients on Node 24:
 * `@google/genai@3` (`httpOptions: { baseUrl, fetch }`, Gemini and `vertexai: true`) and
 * `@ai-sdk/google@4` with `ai@7` (`createGoogleGenerativeAI({ baseURL, apiKey, fetch })`),
 * against the fake provider's Google routes (real HTTP). A primary answering 503 every time
 * is answered by the fallback model; a stream cut mid-answer is rescued; `MAX_TOKENS` and
 * `SAFETY` answers are never a success; the key (provider, endpoint, model, region) is
 * right; a `?key=` never reaches telemetry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleGenAI } from '@google/genai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { embedMany, generateText, streamText } from 'ai';
import { createBreakerbox, type BreakerboxFetchOptions, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { FAST_RETRY } from './scenario-helpers.ts';
import { startReceiver } from './telemetry-receiver.ts';

const KEY = 'AIzaSyFAKE-gemini-key-0123456789';
const ANSWER = 'The quick brown fox jumps over the lazy';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function rig(fetchOptions: BreakerboxFetchOptions = {}, telemetryUrl?: string) {
  const fake: FakeProvider = await startFakeProvider({ tokens: 8, apiKeys: [KEY] });
  open.push(fake);
  const bb = createBreakerbox({ defaults: { retry: FAST_RETRY }, ...(telemetryUrl ? { telemetry: { url: telemetryUrl, service: 'gemini-test' } } : {}) });
  open.unshift({ close: () => bb.close(500) });
  const calls: CallEvent[] = [];
  const warnings: string[] = [];
  bb.onCall((e) => calls.push(e));
  bb.onWarning((w) => warnings.push(w));
  const fetch = bb.fetch({ provider: 'google', ...fetchOptions });
  return { fake, bb, calls, warnings, fetch };
}

const genai = (r: { fake: FakeProvider; fetch: typeof globalThis.fetch }) =>
  new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: r.fake.geminiBaseUrl, fetch: r.fetch } });

describe('@google/genai (Gemini API) through bb.fetch', () => {
  it('answers with the fallback model when the primary answers 503 every time, keyed by the model in the path', async () => {
    const r = await rig({ fallbacks: { 'gemini-2.5-pro': [{ model: 'gemini-2.5-flash' }] } });
    r.fake.script('gemini-2.5-pro', { kind: 'status', status: 503 }, { persistent: true });
    const res = await genai(r).models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi', config: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(res.text).toBe(ANSWER);
    const paths = r.fake.attempts.map((a) => `${a.path} ${a.status}`);
    expect(paths.filter((p) => p === '/v1/models/gemini-2.5-pro:generateContent 503').length).toBeGreaterThan(0);
    expect(paths.at(-1)).toBe('/v1/models/gemini-2.5-flash:generateContent 200');
    expect(r.fake.attempts.at(-1)!.headers['x-goog-api-key']).toBe('[redacted]');
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, provider: 'google', endpoint: 'generate', model: 'gemini-2.5-flash', inputTokens: expect.any(Number), outputTokens: 8 });
    // Priced from the built-in list (2.5 Flash: $0.30 / $2.50 per million), thinking tokens as output.
    const last = r.calls.at(-1)!;
    expect(last.costUsd).toBeCloseTo((last.inputTokens! * 0.3 + 8 * 2.5) / 1e6, 12);
  });

  it('rescues a streamed answer cut mid-answer: the caller reads the whole answer once', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'cut_stream', afterTokens: 3 }]);
    const stream = await genai(r).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'hi' });
    let text = '';
    for await (const c of stream) text += c.text ?? '';
    expect(text).toBe(ANSWER);
    expect(r.fake.attempts.map((a) => `${a.path}?${a.query}`)).toEqual([
      '/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
      '/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
    ]);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, provider: 'google', endpoint: 'generate', model: 'gemini-2.0-flash' });
  });

  it('hands a stream that fails before its first token to the fallback model', async () => {
    const r = await rig({ fallbacks: { 'gemini-2.0-flash': [{ model: 'gemini-2.0-flash-lite' }] } });
    r.fake.script('gemini-2.0-flash', { kind: 'cut_stream', afterTokens: 0 }, { persistent: true });
    const stream = await genai(r).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'hi' });
    let text = '';
    for await (const c of stream) text += c.text ?? '';
    expect(text).toBe(ANSWER);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, model: 'gemini-2.0-flash-lite' });
  });

  it('never counts a MAX_TOKENS answer as a success, streamed or not', async () => {
    const r = await rig();
    const res = await genai(r).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi', config: { maxOutputTokens: 3 } });
    expect(res.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'truncated', finishReason: 'MAX_TOKENS' });
    const stream = await genai(r).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'hi', config: { maxOutputTokens: 3 } });
    for await (const _ of stream) void _;
    await expect.poll(() => r.calls.length).toBe(2);
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'truncated' });
  });

  it('never counts a SAFETY finish or a blocked prompt as a success', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'content_filter' }, { kind: 'content_filter', as: 'error' }, { kind: 'content_filter' }]);
    const a = await genai(r).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
    expect(a.candidates?.[0]?.finishReason).toBe('SAFETY');
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'policy' });
    const b = await genai(r).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
    expect(b.promptFeedback?.blockReason).toBe('SAFETY');
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'policy' });
    const stream = await genai(r).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'hi' });
    for await (const _ of stream) void _;
    await expect.poll(() => r.calls.length).toBe(3);
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'policy', finishReason: 'SAFETY' });
  });

  it('reads a 429 RESOURCE_EXHAUSTED per minute as a rate limit and per day as quota; the client gets its typed error', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', { kind: 'quota' }, { persistent: true });
    const err = await genai(r).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' }).catch((e: unknown) => e as { status?: number; name?: string });
    expect(err).toMatchObject({ name: 'ApiError', status: 429 });
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'quota' });
    r.fake.script('gemini-2.0-flash', [{ kind: 'rate_limit', retryAfter: 0 }]);
    const ok = await genai(r).models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
    expect(ok.text).toBe(ANSWER);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, attempts: 2 });
  });

  it('embeds through :batchEmbedContents with the fallback model renamed in the body too', async () => {
    const r = await rig({ fallbacks: { 'gemini-embedding-001': [{ model: 'text-embedding-004' }] } });
    r.fake.script('gemini-embedding-001', { kind: 'status', status: 503 }, { persistent: true });
    const res = await genai(r).models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'] });
    expect(res.embeddings?.length).toBe(2);
    const last = r.fake.attempts.at(-1)!;
    expect(last.path).toBe('/v1/models/text-embedding-004:batchEmbedContents');
    expect((last.body as { requests: Array<{ model: string }> }).requests.map((q) => q.model)).toEqual(['models/text-embedding-004', 'models/text-embedding-004']);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, endpoint: 'embed', model: 'text-embedding-004' });
  });
});

describe('@ai-sdk/google with ai@7 through bb.fetch', () => {
  const google = (r: { fake: FakeProvider; fetch: typeof globalThis.fetch }) => createGoogleGenerativeAI({ baseURL: `${r.fake.geminiBaseUrl}/v1beta`, apiKey: KEY, fetch: r.fetch });

  it('generateText is answered by the fallback model when the primary answers 503 every time', async () => {
    const r = await rig({ fallbacks: { 'gemini-2.0-flash': [{ model: 'gemini-2.0-flash-lite' }] } });
    r.fake.script('gemini-2.0-flash', { kind: 'status', status: 503 }, { persistent: true });
    const res = await generateText({ model: google(r)('gemini-2.0-flash'), prompt: 'hi', maxRetries: 0 });
    expect(res.text).toBe(ANSWER);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, provider: 'google', endpoint: 'generate', model: 'gemini-2.0-flash-lite' });
  });

  it('streamText: a stream cut mid-answer is rescued', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'cut_stream', afterTokens: 4 }]);
    const res = streamText({ model: google(r)('gemini-2.0-flash'), prompt: 'hi', maxRetries: 0 });
    let text = '';
    for await (const t of res.textStream) text += t;
    expect(text).toBe(ANSWER);
    expect(r.fake.attempts).toHaveLength(2);
    await expect.poll(() => r.calls.length).toBe(1);
    expect(r.calls[0]).toMatchObject({ ok: true, model: 'gemini-2.0-flash' });
  });

  it('a MAX_TOKENS answer reaches ai as finishReason length and is never a success', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'finish_length' }]);
    const res = await generateText({ model: google(r)('gemini-2.0-flash'), prompt: 'hi', maxRetries: 0 });
    expect(res.finishReason).toBe('length');
    expect(r.calls.at(-1)).toMatchObject({ ok: false, errorClass: 'truncated' });
  });

  it('embedMany goes through :batchEmbedContents under the embed key', async () => {
    const r = await rig();
    const res = await embedMany({ model: google(r).embedding('gemini-embedding-001'), values: ['a', 'b', 'c'], maxRetries: 0 });
    expect(res.embeddings).toHaveLength(3);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, endpoint: 'embed', model: 'gemini-embedding-001' });
  });
});

describe('Vertex AI through bb.fetch', () => {
  it('@google/genai vertexai mode: keyed by the location as the region; a 503 is answered by the fallback model', async () => {
    const r = await rig({ provider: undefined, fallbacks: { 'gemini-2.5-flash': [{ model: 'gemini-2.0-flash' }] } });
    r.fake.script('gemini-2.5-flash', { kind: 'status', status: 503 }, { persistent: true });
    const authClient = { getRequestHeaders: async () => new Headers({ authorization: `Bearer ${KEY}` }) };
    const ai = new GoogleGenAI({
      vertexai: true,
      project: 'acme-prod',
      location: 'europe-west4',
      httpOptions: { baseUrl: r.fake.geminiBaseUrl, fetch: r.fetch },
      googleAuthOptions: { authClient: authClient as never },
    });
    const res = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(res.text).toBe(ANSWER);
    expect(r.fake.attempts.at(-1)!.path).toBe('/v1beta1/projects/acme-prod/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent');
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, endpoint: 'generate', model: 'gemini-2.0-flash', region: 'europe-west4' });
  });

  it('a fallback to another region rewrites the location in the path and keys the region', async () => {
    const other = await startFakeProvider({ tokens: 8, apiKeys: [KEY] });
    open.push(other);
    const r = await rig({ provider: 'vertex-ai', fallbacks: { 'gemini-2.0-flash': [{ baseURL: other.url, region: 'us-central1', provider: 'vertex-ai' }] } });
    r.fake.script('gemini-2.0-flash', { kind: 'status', status: 503 }, { persistent: true });
    const url = `${r.fake.url}/v1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent`;
    const res = await r.fetch(url, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(res.status).toBe(200);
    expect(r.fake.attempts.every((a) => a.path.includes('/locations/europe-west4/'))).toBe(true);
    expect(other.attempts.map((a) => a.path)).toEqual(['/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent']);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, provider: 'vertex-ai', region: 'us-central1', level: 1 });
  });
});

describe('Vertex locations behind one host', () => {
  it('keys each location of the path as its own region', async () => {
    const r = await rig({ provider: 'vertex-ai' });
    const send = (location: string) =>
      r.fetch(`${r.fake.url}/v1/projects/p1/locations/${location}/publishers/google/models/gemini-2.0-flash:generateContent`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
    await (await send('europe-west4')).text();
    await (await send('us-central1')).text();
    expect(r.calls.map((c) => c.region)).toEqual(['europe-west4', 'us-central1']);
  });
});

describe('the Gemini key in the query', () => {
  it('a ?key= never reaches telemetry, samples, call events or warnings', async () => {
    const rx = await startReceiver();
    open.push(rx);
    const r = await rig({ fallbacks: { 'gemini-2.0-flash': [{ model: 'gemini-2.0-flash-lite', apiKey: KEY }] } }, rx.url);
    r.fake.script('gemini-2.0-flash', { kind: 'status', status: 503 }, { persistent: true });
    const url = `${r.fake.url}/v1beta/models/gemini-2.0-flash:generateContent?key=${KEY}`;
    const res = await r.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
    expect(res.status).toBe(200);
    // The fallback got the key where the caller put it, and no key header was added.
    const last = r.fake.attempts.at(-1)!;
    expect(last.query).toBe('key=[redacted]');
    expect(last.headers['x-goog-api-key']).toBeUndefined();
    await r.bb.close(2000);
    expect(rx.received.length).toBeGreaterThan(0);
    const everything = JSON.stringify([rx.received, r.calls, r.warnings]);
    expect(everything).toContain('gemini-2.0-flash');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('AIzaSy');
  });
});

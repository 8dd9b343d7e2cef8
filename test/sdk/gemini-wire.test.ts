/**
 * Google's wire in the SDK, below the clients: how Gemini API and Vertex AI paths are read
 * and re-targeted (`apis/gemini.ts`, `apis/vertex.ts`), the JSON-array stream framing, the
 * JSON-array stream through `bb.fetch` (no `alt=sse`), and Google errors, finishes and
 * retry delays on the one taxonomy (protocol's `classify.ts`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classifyErrorBody, classifyFinishReason, classifyHttpError, googleRetryDelayMs } from '../../protocol/index.ts';
import { readModelCall } from '../../sdk/fetch/apis/index.ts';
import { jsonArrayFraming } from '../../sdk/streams/json-array-framing.ts';
import { createBreakerbox, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider } from '../support/fake-provider.ts';
import { googleError, resourceExhausted } from '../support/fake-provider-gemini-bodies.ts';
import { FAST_RETRY } from './scenario-helpers.ts';
import { authRevokedAnswer, rateLimitAnswer, truncatedAnswer } from '../../sdk/drills/drill-answers.ts';
import { geminiDialect } from '../../sdk/streams/dialect-gemini.ts';
import { sseFraming } from '../../sdk/streams/stream-framing.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

const at = (u: string) => readModelCall(new URL(u), {});
const retarget = (u: string, to: Record<string, string>, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) => {
  const call = at(u)!;
  const out = call.api.retarget(call, { url: new URL(u), headers: new Headers(headers), body }, to);
  return { url: out.url.toString(), headers: Object.fromEntries(out.headers), body: out.body };
};

describe('reading Google paths', () => {
  it('reads the Gemini API methods, versions and tuned models with the model from the path', () => {
    expect(at('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse')).toMatchObject({ family: 'generate', model: 'gemini-2.5-pro', stream: true });
    expect(at('https://generativelanguage.googleapis.com/v1/models/gemini-2.0-flash:generateContent')).toMatchObject({ family: 'generate', stream: false });
    expect(at('https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents')).toMatchObject({ family: 'embed', model: 'gemini-embedding-001' });
    expect(at('https://generativelanguage.googleapis.com/v1beta/tunedModels/my-tune:generateContent')).toMatchObject({ model: 'my-tune' });
    expect(at('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:countTokens')).toBeUndefined();
  });

  it('reads Vertex paths, the location as the region, and express mode without one', () => {
    expect(at('https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent')).toMatchObject({ family: 'generate', model: 'gemini-2.5-flash', region: 'europe-west4' });
    const express = at('https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse')!;
    expect(express).toMatchObject({ stream: true, model: 'gemini-2.5-flash' });
    expect(express.region).toBeUndefined();
  });
});

describe('re-targeting Google requests', () => {
  const G = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent';
  it('renames the model in the path, and in an embeddings body', () => {
    expect(retarget(G, { model: 'gemini-2.5-flash' }).url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    const e = retarget('https://x.test/v1beta/models/a:embedContent', { model: 'b' }, {}, { model: 'models/a', content: { parts: [] } });
    expect(e.body).toMatchObject({ model: 'models/b' });
  });

  it('takes a base URL with or without the version', () => {
    expect(retarget(G, { baseURL: 'https://gw.test/google' }).url).toBe('https://gw.test/google/v1beta/models/gemini-2.5-pro:generateContent');
    expect(retarget(G, { baseURL: 'https://gw.test/google/v1' }).url).toBe('https://gw.test/google/v1/models/gemini-2.5-pro:generateContent');
  });

  it('puts the fallback key where the caller put its own: the query or x-goog-api-key', () => {
    const q = retarget(`${G}?key=AIza-old`, { apiKey: 'AIza-new' });
    expect(new URL(q.url).searchParams.get('key')).toBe('AIza-new');
    expect(q.headers['x-goog-api-key']).toBeUndefined();
    expect(retarget(G, { apiKey: 'AIza-new' }, { 'x-goog-api-key': 'AIza-old' }).headers['x-goog-api-key']).toBe('AIza-new');
  });

  it('moves a Vertex request to another region: path and Google host, or the location of a regional base URL', () => {
    const V = 'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/m:generateContent';
    expect(retarget(V, { region: 'us-central1' }).url).toBe('https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/m:generateContent');
    expect(retarget(V, { region: 'global' }).url).toBe('https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/m:generateContent');
    expect(retarget(V, { baseURL: 'https://asia-northeast1-aiplatform.googleapis.com' }).url).toBe('https://asia-northeast1-aiplatform.googleapis.com/v1/projects/p/locations/asia-northeast1/publishers/google/models/m:generateContent');
    expect(retarget(V, { apiKey: 'ya29.token' }, { authorization: 'Bearer old' }).headers.authorization).toBe('Bearer ya29.token');
  });
});

describe('the JSON-array stream framing', () => {
  const elements = [{ candidates: [{ content: { parts: [{ text: 'a "quoted" ] , [ text {' }] } }] }, { candidates: [{ content: { parts: [{ text: '\\' }] }, finishReason: 'STOP' }] }];
  const body = '[' + elements.map((e) => JSON.stringify(e, null, 2)).join('\n,\r\n') + '\n]';

  it('cuts a pretty-printed array into its elements however the bytes are split', () => {
    const bytes = new TextEncoder().encode(body);
    for (const size of [1, 2, 7, bytes.length]) {
      const d = jsonArrayFraming.decoder();
      const events = [];
      for (let i = 0; i < bytes.length; i += size) events.push(...d.push(bytes.slice(i, i + size)));
      events.push(...d.end());
      expect(events.map((e) => JSON.parse(e.data) as unknown)).toEqual(elements);
    }
  });

  it('writes the elements back as one JSON array', () => {
    const enc = jsonArrayFraming.encoder();
    const text = elements.map((e) => new TextDecoder().decode(enc.frame({ event: 'message', data: JSON.stringify(e) }))).join('') + new TextDecoder().decode(enc.end());
    expect(JSON.parse(text)).toEqual(elements);
  });

  it('hands on an element cut by the end of the body, so it reads as malformed', () => {
    const d = jsonArrayFraming.decoder();
    d.push(new TextEncoder().encode('[{"candidates": [{"content"'));
    expect(d.end().map((e) => e.data)).toEqual(['{"candidates": [{"content"']);
  });
});

describe('the JSON-array stream through bb.fetch (no alt=sse)', () => {
  async function rig() {
    const fake = await startFakeProvider({ tokens: 6 });
    open.push(fake);
    const bb = createBreakerbox({ defaults: { retry: FAST_RETRY } });
    open.unshift({ close: () => bb.close(200) });
    const calls: CallEvent[] = [];
    bb.onCall((e) => calls.push(e));
    const fetch = bb.fetch({ provider: 'google', malformedChunks: 'skip' });
    const send = () => fetch(`${fake.url}/v1beta/models/gemini-2.0-flash:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': fake.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
    return { fake, calls, send };
  }
  const textOf = (arr: Array<{ candidates?: Array<{ content?: { parts?: Array<{ text?: string }> } }> }>) => arr.map((c) => c.candidates?.[0]?.content?.parts?.[0]?.text ?? '').join('');

  it('forwards the whole array, usage and finish read from its chunks', async () => {
    const r = await rig();
    const res = await r.send();
    const arr = JSON.parse(await res.text()) as Parameters<typeof textOf>[0];
    expect(textOf(arr)).toBe('The quick brown fox jumps over');
    await expect.poll(() => r.calls.length).toBe(1);
    expect(r.calls[0]).toMatchObject({ ok: true, endpoint: 'generate', finishReason: 'STOP', outputTokens: 6 });
  });

  it('drops a malformed element and still forwards a valid array', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'malformed_chunk', afterTokens: 2 }]);
    const arr = JSON.parse(await (await r.send()).text()) as Parameters<typeof textOf>[0];
    expect(textOf(arr)).toBe('The quick brown fox jumps over');
    await expect.poll(() => r.calls.length).toBe(1);
    expect(r.calls[0]).toMatchObject({ ok: true });
  });

  it('rescues a stream cut mid-array: the caller reads one whole, valid array', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', [{ kind: 'cut_stream', afterTokens: 3, how: 'end' }]);
    const arr = JSON.parse(await (await r.send()).text()) as Parameters<typeof textOf>[0];
    expect(textOf(arr)).toBe('The quick brown fox jumps over');
    await expect.poll(() => r.calls.length).toBe(1);
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 1 });
  });

  it('reports a stream cut mid-array on every attempt as stream_broken, never a success', async () => {
    const r = await rig();
    r.fake.script('gemini-2.0-flash', { kind: 'cut_stream', afterTokens: 3, how: 'end' }, { persistent: true });
    const res = await r.send();
    await expect(res.text()).rejects.toThrow();
    await expect.poll(() => r.calls.length).toBe(1);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'stream_broken' });
  });
});

describe('Google errors and finishes on the one taxonomy', () => {
  const cls = (code: number, over: Parameters<typeof googleError>[1] = {}) => classifyHttpError(code, JSON.stringify(googleError(code, over)));
  it('classifies the canonical statuses', () => {
    expect(cls(503)).toBe('server');
    expect(cls(500)).toBe('server');
    expect(cls(504)).toBe('timeout');
    expect(cls(400)).toBe('bad_request');
    expect(cls(400, { message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).' })).toBe('context_length');
    expect(cls(400, { message: 'API key not valid. Please pass a valid API key.' })).toBe('auth');
    expect(cls(403)).toBe('auth');
    expect(cls(404)).toBe('bad_request');
    expect(classifyHttpError(429, JSON.stringify(resourceExhausted('rate', 'm')))).toBe('rate_limit');
    expect(classifyHttpError(429, JSON.stringify(resourceExhausted('quota', 'm')))).toBe('quota');
    expect(classifyErrorBody(googleError(503))).toBe('server');
    expect(classifyErrorBody([googleError(429)])).toBe('rate_limit');
  });

  it('reads the RetryInfo delay Google sends instead of retry-after', () => {
    expect(googleRetryDelayMs(JSON.stringify(resourceExhausted('rate', 'm', 27)))).toBe(27_000);
    expect(googleRetryDelayMs(JSON.stringify(resourceExhausted('quota', 'm')))).toBeUndefined();
  });

  it('classifies Gemini finish reasons: MAX_TOKENS truncated, the refusals policy, STOP and OTHER none', () => {
    expect(classifyFinishReason('MAX_TOKENS')).toBe('truncated');
    for (const r of ['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY']) expect(classifyFinishReason(r)).toBe('policy');
    expect(classifyFinishReason('STOP')).toBeUndefined();
    expect(classifyFinishReason('OTHER')).toBeUndefined();
  });
});

describe('drills on the Google families', () => {
  it('craft Google-shaped faults: RESOURCE_EXHAUSTED with its RetryInfo, UNAUTHENTICATED, and MAX_TOKENS as JSON, SSE and JSON array', async () => {
    const rl = rateLimitAnswer('generate', 'd1', 3);
    const rlBody = await rl.text();
    expect(rl.status).toBe(429);
    expect(classifyHttpError(429, rlBody)).toBe('rate_limit');
    expect(googleRetryDelayMs(rlBody)).toBe(3000);
    const auth = authRevokedAnswer('embed', 'd1');
    expect(JSON.parse(await auth.text())).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    const json = JSON.parse(await truncatedAnswer('generate', 'd1', {}, false)!.text()) as { candidates: Array<{ finishReason: string }> };
    expect(classifyFinishReason(json.candidates[0]!.finishReason)).toBe('truncated');
    const finishes = async (res: Response, framing: typeof sseFraming) => {
      const d = framing.decoder();
      const events = [...d.push(new Uint8Array(await res.arrayBuffer())), ...d.end()];
      return events.map((e) => geminiDialect.interpret(e)).filter((f) => f.finishReason).map((f) => f.finishReason);
    };
    expect(await finishes(truncatedAnswer('generate', 'd1', {}, true, new URL('https://x.test/v1/models/m:streamGenerateContent?alt=sse'))!, sseFraming)).toEqual(['MAX_TOKENS']);
    expect(await finishes(truncatedAnswer('generate', 'd1', {}, true, new URL('https://x.test/v1/models/m:streamGenerateContent'))!, jsonArrayFraming)).toEqual(['MAX_TOKENS']);
    expect(truncatedAnswer('embed', 'd1', {}, false)).toBeUndefined();
  });
});

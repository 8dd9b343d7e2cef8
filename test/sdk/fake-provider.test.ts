/**
 * Proves each fault of the shared fake provider behaves as its documentation says, over
 * real HTTP on loopback. The prober's tests and the demo rely on these behaviours.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { classifyHttpError, classifyThrown } from '../../sdk/index.ts';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ tokens: 6 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const MODEL = 'acme/model-1:free@v2';

function chat(body: Record<string, unknown>, init: { key?: string; signal?: AbortSignal } = {}) {
  return fetch(`${fake.openaiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${init.key ?? fake.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...body }),
    signal: init.signal,
  });
}
function messages(body: Record<string, unknown>, init: { key?: string } = {}) {
  return fetch(`${fake.anthropicBaseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': init.key ?? fake.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}
/** Reads an SSE body into its `data:` payloads, stopping at an error. */
async function sseData(res: Response): Promise<{ data: string[]; error?: unknown }> {
  const data: string[] = [];
  const text = await res.text().catch((e: unknown) => ({ error: e }));
  if (typeof text !== 'string') return { data, error: text.error };
  for (const frame of text.split('\n\n')) {
    const line = frame.split('\n').find((l) => l.startsWith('data: '));
    if (line) data.push(line.slice(6));
  }
  return { data };
}

describe('fake provider: healthy answers', () => {
  it('answers OpenAI JSON with ids, usage and x-request-id, and logs the attempt', async () => {
    const res = await chat({});
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const body = (await res.json()) as { id: string; choices: { finish_reason: string; message: { content: string } }[]; usage: { completion_tokens: number } };
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices[0]!.finish_reason).toBe('stop');
    expect(body.usage.completion_tokens).toBe(6);
    expect(fake.attempts).toHaveLength(1);
    expect(fake.attempts[0]).toMatchObject({ dialect: 'openai', model: MODEL, stream: false, status: 200, fault: 'ok' });
    expect(fake.attempts[0]!.headers.authorization).toBe('[redacted]');
  });

  it('streams OpenAI SSE ending in [DONE], with usage in the last chunk only when include_usage is set', async () => {
    const plain = await sseData(await chat({ stream: true }));
    expect(plain.data.at(-1)).toBe('[DONE]');
    expect(plain.data.slice(0, -1).some((d) => 'usage' in JSON.parse(d))).toBe(false);

    const withUsage = await sseData(await chat({ stream: true, stream_options: { include_usage: true } }));
    const last = JSON.parse(withUsage.data.at(-2)!) as { choices: unknown[]; usage: { completion_tokens: number } };
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBe(6);
  });

  it('streams Anthropic events in the real order through the official client', async () => {
    const client = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
    const types: string[] = [];
    const stream = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const ev of stream) types.push(ev.type);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const res = await messages({});
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { type: string; stop_reason: string; usage: { output_tokens: number } };
    expect(body).toMatchObject({ type: 'message', stop_reason: 'end_turn', usage: { output_tokens: 6 } });
  });

  it('works as the base URL of the official openai client, streaming included', async () => {
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
    const done = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0]!.message.content).toBe('The quick brown fox jumps over');
    let text = '';
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('The quick brown fox jumps over');
  });

  it('stops at max_tokens with finish length, as the real API does for a 1-token request', async () => {
    const body = (await (await chat({ max_tokens: 1 })).json()) as { choices: { finish_reason: string }[]; usage: { completion_tokens: number } };
    expect(body.choices[0]!.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(1);
  });
});

describe('fake provider: authentication and routing', () => {
  it('answers a wrong key with 401 in each dialect', async () => {
    const o = await chat({}, { key: 'wrong' });
    expect(o.status).toBe(401);
    expect(((await o.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    const a = await messages({}, { key: 'wrong' });
    expect(a.status).toBe(401);
    expect(classifyHttpError(a.status, await a.json())).toBe('auth');
  });

  it('answers an unknown model with 404 model_not_found when a catalogue is set', async () => {
    const strict = await startFakeProvider({ models: ['known'] });
    try {
      const res = await fetch(`${strict.openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${strict.apiKey}` },
        body: JSON.stringify({ model: 'unknown', messages: [] }),
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    } finally {
      await strict.close();
    }
  });
});

describe('fake provider: scripted error answers', () => {
  it('consumes a sequence one fault per request, then serves ok', async () => {
    fake.script(MODEL, [{ kind: 'status', status: 500 }, { kind: 'status', status: 503 }]);
    expect((await chat({})).status).toBe(500);
    expect((await chat({})).status).toBe(503);
    expect((await chat({})).status).toBe(200);
    expect(fake.attempts.map((a) => a.fault)).toEqual(['status', 'status', 'ok']);
  });

  it('repeats a persistent script until cleared, and scripts apply per model', async () => {
    fake.script(MODEL, { kind: 'status', status: 529 }, { persistent: true });
    for (let i = 0; i < 3; i++) expect((await messages({})).status).toBe(529);
    expect((await messages({ model: 'other' })).status).toBe(200);
    fake.clear(MODEL);
    expect((await messages({})).status).toBe(200);
  });

  it('sends 429 rate limits with and without retry-after, and quota as insufficient_quota', async () => {
    fake.script(MODEL, [{ kind: 'rate_limit', retryAfter: 2 }, { kind: 'rate_limit' }, { kind: 'quota' }]);
    const a = await chat({});
    expect(a.headers.get('retry-after')).toBe('2');
    expect(classifyHttpError(429, await a.json())).toBe('rate_limit');
    const b = await chat({});
    expect(b.headers.get('retry-after')).toBeNull();
    const c = await chat({});
    expect(c.status).toBe(429);
    expect(classifyHttpError(429, await c.json())).toBe('quota');
  });

  it('sends Anthropic rate limits and credit exhaustion the way the real API does', async () => {
    fake.script(MODEL, [{ kind: 'rate_limit', retryAfter: 1 }, { kind: 'quota' }]);
    const a = await messages({});
    expect(((await a.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
    const b = await messages({});
    expect(b.status).toBe(400);
    expect(classifyHttpError(400, await b.json())).toBe('quota');
  });

  it('sends 400 context_length_exceeded, 404 model not found, content filter errors and 5xx bodies that classify correctly', async () => {
    fake.script(MODEL, [
      { kind: 'context_length' },
      { kind: 'model_not_found' },
      { kind: 'content_filter', as: 'error' },
      { kind: 'status', status: 503 },
      { kind: 'status', status: 502 },
    ]);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await chat({});
      const text = await res.text();
      seen.push(`${res.status}:${classifyHttpError(res.status, text)}`);
    }
    expect(seen).toEqual(['400:context_length', '404:bad_request', '400:policy', '503:server', '502:server']);
  });
});

describe('fake provider: connection faults', () => {
  it('resets the TCP connection before headers', async () => {
    fake.script(MODEL, { kind: 'reset' });
    const err = await chat({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(classifyThrown(err)).toBe('network');
    expect(fake.attempts[0]!.status).toBeUndefined();
  });

  it('never answers a no_response request until the client aborts', async () => {
    fake.script(MODEL, { kind: 'no_response' });
    const ac = new AbortController();
    const pending = chat({}, { signal: ac.signal }).catch((e: unknown) => e);
    await fake.waitForAttempts(1);
    const raced = await Promise.race([pending, new Promise((r) => setTimeout(() => r('still waiting'), 150))]);
    expect(raced).toBe('still waiting');
    ac.abort();
    expect(classifyThrown(await pending)).toBe('timeout');
  });

  it('delays headers by latencyMs', async () => {
    fake.script(MODEL, { kind: 'ok', latencyMs: 300 });
    const ac = new AbortController();
    const pending = chat({}, { signal: ac.signal }).catch((e: unknown) => e);
    await fake.waitForAttempts(1);
    const raced = await Promise.race([pending, new Promise((r) => setTimeout(() => r('no headers yet'), 100))]);
    expect(raced).toBe('no headers yet');
    const res = (await pending) as Response;
    expect(res.status).toBe(200);
  });
});

describe('fake provider: stream faults', () => {
  it('sends head frames at once and the first token only after slow_first_token ms', async () => {
    fake.script(MODEL, { kind: 'slow_first_token', ms: 300 });
    const res = await chat({ stream: true });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    expect(first).not.toContain('The');
    const raced = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r('no token yet'), 100))]);
    expect(raced).toBe('no token yet');
    await reader.cancel();
  });

  it('cuts a stream after N tokens with a reset, or ends it cleanly without finish', async () => {
    fake.script(MODEL, [{ kind: 'cut_stream', afterTokens: 4, tokens: 6 }, { kind: 'cut_stream', afterTokens: 2, how: 'end' }]);
    const cut = await sseData(await chat({ stream: true }));
    expect(cut.error).toBeDefined();
    expect(classifyThrown(cut.error)).toBe('network');
    expect(fake.attempts[0]!.tokensSent).toBe(4);
    const ended = await sseData(await chat({ stream: true }));
    expect(ended.error).toBeUndefined();
    expect(ended.data).not.toContain('[DONE]');
    expect(ended.data.some((d) => d.includes('"finish_reason":"stop"'))).toBe(false);
    expect(fake.attempts[1]!.tokensSent).toBe(2);
  });

  it('stalls a stream after N tokens and keeps the connection open', async () => {
    fake.script(MODEL, { kind: 'stall', afterTokens: 2 });
    const res = await chat({ stream: true });
    const reader = res.body!.getReader();
    let text = '';
    const readAll = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'ended';
        text += new TextDecoder().decode(value);
      }
    })().catch(() => 'errored');
    const raced = await Promise.race([readAll, new Promise((r) => setTimeout(() => r('stalled'), 200))]);
    expect(raced).toBe('stalled');
    expect(text.match(/"content":"[^"]+"/g)).toHaveLength(2);
    await reader.cancel();
  });

  it('inserts one malformed frame and then completes', async () => {
    fake.script(MODEL, { kind: 'malformed_chunk', afterTokens: 3 });
    const { data } = await sseData(await chat({ stream: true }));
    const broken = data.filter((d) => d !== '[DONE]' && !isJson(d));
    expect(broken).toHaveLength(1);
    expect(data.at(-1)).toBe('[DONE]');
  });

  it('omits the end event but still sends finish and usage (no_end_event)', async () => {
    fake.script(MODEL, [{ kind: 'no_end_event' }, { kind: 'no_end_event' }]);
    const o = await sseData(await chat({ stream: true, stream_options: { include_usage: true } }));
    expect(o.data).not.toContain('[DONE]');
    expect(JSON.parse(o.data.at(-1)!).usage.total_tokens).toBeGreaterThan(0);
    const a = await (await messages({ stream: true })).text();
    expect(a).toContain('event: message_delta');
    expect(a).not.toContain('message_stop');
  });

  it('keeps the connection open after the last frame with no_end_event keepOpen', async () => {
    fake.script(MODEL, { kind: 'no_end_event', keepOpen: true });
    const res = await chat({ stream: true });
    const pending = res.text();
    const raced = await Promise.race([pending, new Promise((r) => setTimeout(() => r('open'), 200))]);
    expect(raced).toBe('open');
    await res.body?.cancel().catch(() => undefined);
  });

  it('finishes with length / max_tokens and with content filter / refusal', async () => {
    fake.script(MODEL, [{ kind: 'finish_length' }, { kind: 'content_filter' }, { kind: 'finish_length' }, { kind: 'content_filter' }]);
    const o1 = (await (await chat({})).json()) as { choices: { finish_reason: string }[] };
    const o2 = await sseData(await chat({ stream: true }));
    expect(o1.choices[0]!.finish_reason).toBe('length');
    expect(o2.data.some((d) => d.includes('"finish_reason":"content_filter"'))).toBe(true);
    const a1 = (await (await messages({})).json()) as { stop_reason: string };
    const a2 = (await (await messages({})).json()) as { stop_reason: string };
    expect([a1.stop_reason, a2.stop_reason]).toEqual(['max_tokens', 'refusal']);
  });

  it('spaces stream frames by tokenIntervalMs', async () => {
    fake.script(MODEL, { kind: 'ok', tokenIntervalMs: 150, tokens: 3 });
    const res = await chat({ stream: true });
    const reader = res.body!.getReader();
    await reader.read(); // head
    const raced = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r('gap'), 50))]);
    expect(raced).toBe('gap');
    await reader.cancel();
  });

  it('breaks a non-streamed answer for stream faults (half a body, then reset)', async () => {
    fake.script(MODEL, [{ kind: 'cut_stream', afterTokens: 1 }, { kind: 'malformed_chunk', afterTokens: 1 }]);
    const cut = await (await chat({})).text().catch((e: unknown) => e);
    expect(classifyThrown(cut)).toBe('network');
    const malformed = await (await chat({})).text();
    expect(isJson(malformed)).toBe(false);
  });
});

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

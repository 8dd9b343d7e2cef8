/**
 * The other 2026 shapes through the official clients and `bb.fetch`: chat streams ending in
 * tool calls, reasoning models over chat, Anthropic thinking / redacted thinking / tool_use
 * and its stop reasons, embeddings. Each goes through intact when healthy; a truncated or
 * malformed one is never a success.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { messageText, readMessages, rig, sdkError, type Rig } from './scenario-helpers.ts';
import { SDK_ERROR_CODES } from '../../sdk/index.ts';

const WHOLE = 'The quick brown fox jumps over the lazy';
const TOOL = { type: 'function' as const, function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' } } } } };
let r: Rig;
afterEach(async () => r?.close());

async function toolStream(model: string) {
  const stream = await r.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], tools: [TOOL], tool_choice: 'required', stream: true, stream_options: { include_usage: true } });
  let args = '';
  let finish: string | null = null;
  let error: unknown;
  try {
    for await (const c of stream) {
      args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
  } catch (e) {
    error = e;
  }
  return { args, finish, error };
}

function thinking(model: string, extra: Record<string, unknown> = {}) {
  return r.anthropic.messages.stream({ model, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }], ...extra } as Anthropic.MessageStreamParams);
}

describe('chat with tools', () => {
  it('passes a tool-call stream intact: argument pieces assemble and finish_reason is tool_calls', async () => {
    r = await rig();
    const out = await toolStream('gpt-4o');
    expect(out.error).toBeUndefined();
    expect(out.finish).toBe('tool_calls');
    expect(JSON.parse(out.args)).toEqual({ query: WHOLE, limit: 8 });
    expect(r.calls[0]).toMatchObject({ ok: true, finishReason: 'tool_calls' });
  });

  it('reads a tool-call stream cut mid-arguments as broken, never complete, and does not regenerate the call', async () => {
    r = await rig();
    r.fake.script('gpt-4o', { kind: 'cut_stream', afterTokens: 3, how: 'end' });
    const out = await toolStream('gpt-4o');
    expect(() => JSON.parse(out.args)).toThrow(); // the caller holds a partial call…
    expect(sdkError(out.error)?.code).toBe(SDK_ERROR_CODES.STREAM_BROKEN); // …and is told so
    expect(sdkError(out.error)?.message).toMatch(/tool call is never sent twice/);
    expect(r.fake.attemptsFor('gpt-4o')).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'stream_broken' });
  });
});

describe('reasoning models over chat', () => {
  it('passes max_completion_tokens and reasoning_effort through and counts reasoning tokens in usage and cost', async () => {
    r = await rig();
    const res = await r.client.chat.completions.create({ model: 'o3', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 200, reasoning_effort: 'low' });
    expect(res.choices[0]!.message.content).toBe(WHOLE);
    expect(r.fake.attempts[0]!.body).toMatchObject({ max_completion_tokens: 200, reasoning_effort: 'low' });
    expect(r.calls[0]).toMatchObject({ ok: true, outputTokens: 16, reasoningTokens: 8 });
    expect(r.calls[0]!.costUsd).toBeCloseTo((r.calls[0]!.inputTokens! * 2 + 16 * 8) / 1e6, 12);
  });

  it('reads a reasoning model that spent its budget thinking (length, no text) as truncated, streamed too', async () => {
    r = await rig();
    const stream = await r.client.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 10, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('');
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'truncated', reasoningTokens: 10 });
  });
});

describe('Anthropic thinking and tool use', () => {
  it('passes a thinking stream intact (thinking with signature, then text) and counts thinking as output', async () => {
    r = await rig();
    const out = await readMessages(thinking('claude-sonnet-4'));
    expect(out.final?.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(messageText(out.final)).toBe(WHOLE);
    expect(r.calls[0]).toMatchObject({ ok: true, outputTokens: 24 });
  });

  it('passes redacted thinking and a tool_use block intact (stop_reason tool_use)', async () => {
    r = await rig();
    r.fake.script('claude-sonnet-4', { kind: 'ok', redactedThinking: true, output: 'tool_call' });
    const out = await readMessages(thinking('claude-sonnet-4', { tools: [{ name: 'search_docs', input_schema: { type: 'object' } }] }));
    expect(out.final?.content.map((b) => b.type)).toEqual(['redacted_thinking', 'tool_use']);
    expect((out.final?.content[1] as Anthropic.ToolUseBlock).input).toEqual({ query: WHOLE, limit: 8 });
    expect(r.calls[0]).toMatchObject({ ok: true, finishReason: 'tool_use' });
  });

  it('rescues a thinking stream cut in its text by regeneration: one thinking block, the text once', async () => {
    r = await rig();
    r.fake.script('claude-sonnet-4', { kind: 'cut_stream', afterTokens: 3 });
    const out = await readMessages(thinking('claude-sonnet-4'));
    expect(out.error).toBeUndefined();
    expect(out.final?.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(messageText(out.final)).toBe(WHOLE);
    // Prefill is not allowed with thinking: the rescue was a regeneration of the whole turn.
    expect((r.fake.attempts[1]!.body as { messages: unknown[] }).messages).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, rescues: 1 });
  });

  it('reads stop_reason max_tokens as truncated and refusal as policy', async () => {
    r = await rig();
    r.fake.script('claude-sonnet-4', [{ kind: 'finish_length' }, { kind: 'content_filter' }]);
    const ask = { model: 'claude-sonnet-4', max_tokens: 256, messages: [{ role: 'user' as const, content: 'hi' }] };
    expect((await readMessages(r.anthropic.messages.stream(ask))).final?.stop_reason).toBe('max_tokens');
    expect((await r.anthropic.messages.create(ask)).stop_reason).toBe('refusal');
    expect(r.calls.map((c) => [c.ok, c.errorClass])).toEqual([
      [false, 'truncated'],
      [false, 'policy'],
    ]);
  });
});

describe('embeddings', () => {
  it('passes a whole answer through (base64, decoded by the client) and reports it ok', async () => {
    r = await rig();
    const res = await r.client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(res.data.map((d) => d.embedding.length)).toEqual([1536, 1536]);
    expect(r.calls[0]).toMatchObject({ ok: true, endpoint: 'embeddings' });
  });

  it('never counts missing vectors or the wrong count as a success: retried, then failed over', async () => {
    r = await rig({ fallbacks: { 'text-embedding-3-small': [{ model: 'text-embedding-3-large', }] } });
    r.fake.script('text-embedding-3-small', [{ kind: 'bad_embeddings', how: 'missing' }]);
    const retried = await r.client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(retried.data).toHaveLength(2);
    r.fake.script('text-embedding-3-small', { kind: 'bad_embeddings', how: 'count' }, { persistent: true });
    const failedOver = await r.client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b', 'c'] });
    expect(failedOver.data.map((d) => d.embedding.length)).toEqual([3072, 3072, 3072]);
    expect(r.calls.map((c) => [c.ok, c.model, c.attempts])).toEqual([
      [true, 'text-embedding-3-small', 2],
      [true, 'text-embedding-3-large', 4],
    ]);
  });

  it('fails cleanly when every route answers a short vector', async () => {
    r = await rig();
    r.fake.script('text-embedding-3-small', { kind: 'bad_embeddings', how: 'dimension' }, { persistent: true });
    await expect(r.client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] })).rejects.toThrow(/unequal or unexpected dimension/);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'server' });
  });
});

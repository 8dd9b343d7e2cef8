/**
 * The fake provider's 2026 shapes, read by the official clients directly (no breakerbox):
 * Responses (streamed and not, completed and incomplete), chat tool calls and reasoning
 * usage, Anthropic thinking / redacted thinking / tool_use, embeddings (base64 and float).
 * If the official clients accept these, the SDK's and the prober's tests exercise what
 * they will meet.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

let fake: FakeProvider;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  fake = await startFakeProvider({ tokens: 6 });
  openai = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const TOOL = { type: 'function' as const, function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' } } } } };

describe('Responses API', () => {
  it('answers a completed response whose output_text the client assembles', async () => {
    const r = await openai.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('The quick brown fox jumps over');
    expect(r.usage?.output_tokens).toBe(6);
    expect(fake.attempts[0]!.api).toBe('responses');
  });

  it('streams deltas in sequence and ends with response.completed carrying usage', async () => {
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    const types: string[] = [];
    let text = '';
    let seq = -1;
    let done: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      expect(e.sequence_number).toBe(seq + 1);
      seq = e.sequence_number;
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') done = e.response;
    }
    expect(text).toBe('The quick brown fox jumps over');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(done?.usage?.total_tokens).toBeGreaterThan(6);
  });

  it('ends a capped answer with response.incomplete (max_output_tokens), streamed and not', async () => {
    const r = await openai.responses.create({ model: 'gpt-4.1', input: 'hi', max_output_tokens: 3 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details?.reason).toBe('max_output_tokens');
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true, max_output_tokens: 3 });
    const last: string[] = [];
    for await (const e of stream) last.push(e.type);
    expect(last.at(-1)).toBe('response.incomplete');
  });

  it('spends a reasoning model\'s hidden tokens first and reports them in output_tokens_details', async () => {
    const r = await openai.responses.create({ model: 'o4-mini', input: 'hi', reasoning: { effort: 'low' } });
    expect(r.output[0]!.type).toBe('reasoning');
    expect(r.usage?.output_tokens_details.reasoning_tokens).toBe(8);
    const tiny = await openai.responses.create({ model: 'o4-mini', input: 'hi', max_output_tokens: 4 });
    expect(tiny.status).toBe('incomplete');
    expect(tiny.output_text).toBe('');
  });

  it('streams a function call as argument deltas that assemble to valid JSON', async () => {
    const stream = await openai.responses.create({
      model: 'gpt-4.1',
      input: 'hi',
      stream: true,
      tools: [{ type: 'function', name: 'search_docs', parameters: {}, strict: false }],
      tool_choice: 'required',
    });
    let args = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      if (e.type === 'response.function_call_arguments.delta') args += e.delta;
      if (e.type === 'response.completed') final = e.response;
    }
    expect(JSON.parse(args)).toEqual({ query: 'The quick brown fox jumps over', limit: 6 });
    expect(final?.output[0]).toMatchObject({ type: 'function_call', name: 'search_docs', arguments: args });
  });

  it('fails mid-stream with a response.failed event (a typed event) or an error event (openai@7 throws it as an APIError)', async () => {
    fake.script('gpt-4.1', [{ kind: 'stream_error', afterTokens: 2 }, { kind: 'stream_error', afterTokens: 2, as: 'error' }]);
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true })) events.push(e);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    if (last.type === 'response.failed') expect(last.response.error?.code).toBe('server_error');

    const before: OpenAI.Responses.ResponseStreamEvent[] = [];
    const consume = async () => {
      for await (const e of await openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true })) before.push(e);
    };
    const thrown = await consume().then(() => undefined, (err: unknown) => err);
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect(thrown).toMatchObject({ code: 'server_error', status: undefined });
    expect(before.some((e) => e.type === 'response.output_text.delta')).toBe(true);
  });
});

describe('chat completions, 2026 shapes', () => {
  it('streams a forced tool call whose argument pieces assemble, ending in tool_calls', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools: [TOOL], tool_choice: 'required', stream: true });
    let args = '';
    let finish: string | null = null;
    for await (const c of stream) {
      args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(JSON.parse(args).limit).toBe(6);
  });

  it('refuses max_tokens for a reasoning model and reports reasoning tokens under max_completion_tokens', async () => {
    await expect(openai.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 })).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_parameter',
    });
    const r = await openai.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100, reasoning_effort: 'high' });
    expect(r.usage?.completion_tokens_details?.reasoning_tokens).toBe(32);
    expect(r.usage?.completion_tokens).toBe(38);
    const tiny = await openai.chat.completions.create({ model: 'o3', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 5 });
    expect(tiny.choices[0]!.finish_reason).toBe('length');
    expect(tiny.choices[0]!.message.content).toBe('');
  });
});

describe('Anthropic messages, 2026 shapes', () => {
  it('streams a thinking block with its signature before the text, and counts thinking as output', async () => {
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }] });
    const final = await stream.finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect((final.content[0] as Anthropic.ThinkingBlock).signature.length).toBeGreaterThan(10);
    expect((final.content[1] as Anthropic.TextBlock).text).toBe('The quick brown fox jumps over');
    expect(final.usage.output_tokens).toBe(22);
  });

  it('streams redacted thinking and a tool_use block whose input_json_delta pieces parse', async () => {
    fake.script('claude-sonnet-4-5', { kind: 'ok', redactedThinking: true, output: 'tool_call' });
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'search_docs', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['redacted_thinking', 'tool_use']);
    expect((final.content[1] as Anthropic.ToolUseBlock).input).toEqual({ query: 'The quick brown fox jumps over', limit: 6 });
    expect(final.stop_reason).toBe('tool_use');
  });

  it('refuses thinking whose budget does not fit under max_tokens, and ends a refusal with stop_reason refusal', async () => {
    await expect(
      anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400 });
    fake.script('claude-sonnet-4-5', { kind: 'content_filter' });
    const r = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(r.stop_reason).toBe('refusal');
  });
});

describe('embeddings', () => {
  it('answers one vector per input, base64 by default (decoded by the client) and as floats', async () => {
    const r = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b', 'c'] });
    expect(r.data).toHaveLength(3);
    expect(r.data.every((d) => d.embedding.length === 1536)).toBe(true);
    expect(fake.attempts[0]!.body).toMatchObject({ encoding_format: 'base64' });
    const f = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'a', dimensions: 256, encoding_format: 'float' });
    expect(f.data[0]!.embedding).toHaveLength(256);
  });

  it('spoils an answer as scripted: no vectors, the wrong count, a short vector', async () => {
    fake.script('text-embedding-3-small', [{ kind: 'bad_embeddings', how: 'missing' }, { kind: 'bad_embeddings', how: 'count' }, { kind: 'bad_embeddings', how: 'dimension' }]);
    const input = ['a', 'b'];
    expect((await openai.embeddings.create({ model: 'text-embedding-3-small', input })).data).toHaveLength(0);
    expect((await openai.embeddings.create({ model: 'text-embedding-3-small', input })).data).toHaveLength(1);
    const short = await openai.embeddings.create({ model: 'text-embedding-3-small', input });
    expect(short.data.map((d) => d.embedding.length)).toEqual([768, 1536]);
  });
});

/**
 * What each stream dialect reads from events shaped as the official clients' types
 * declare them (`openai/resources/responses/responses.d.ts`, chat chunks, Anthropic
 * message events): tokens for the first-token and idle limits, the end, the finish and its
 * class, usage with reasoning tokens, and mid-stream errors by the taxonomy.
 */
import { describe, expect, it } from 'vitest';
import { classifyFinishReason } from '../../sdk/index.ts';
import { chatDialect } from '../../sdk/streams/dialect-chat.ts';
import { messagesDialect } from '../../sdk/streams/dialect-messages.ts';
import { responsesDialect } from '../../sdk/streams/dialect-responses.ts';

const ev = (type: string, body: Record<string, unknown> = {}) => ({ event: type, data: JSON.stringify({ type, sequence_number: 1, ...body }) });
const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'resp_1', object: 'response', status, output: [], ...extra });

describe('Responses dialect', () => {
  it('counts every *.delta event as a token: text, function-call arguments, reasoning summaries, refusals', () => {
    for (const t of ['response.output_text.delta', 'response.function_call_arguments.delta', 'response.reasoning_summary_text.delta', 'response.refusal.delta', 'response.custom_tool_call_input.delta']) {
      expect(responsesDialect.interpret(ev(t, { delta: 'x', item_id: 'i', output_index: 0 })).token).toBe(true);
    }
    for (const t of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.output_text.done']) {
      expect(responsesDialect.interpret(ev(t)).token).toBe(false);
    }
  });

  it('ends on response.completed with usage and reasoning tokens, and on response.incomplete as truncated or policy', () => {
    const usage = { input_tokens: 11, input_tokens_details: { cached_tokens: 4 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 41 };
    const done = responsesDialect.interpret(ev('response.completed', { response: response('completed', { usage }) }));
    expect(done).toMatchObject({ end: true, finishReason: 'completed', inputTokens: 11, outputTokens: 30, cachedTokens: 4, reasoningTokens: 20 });
    expect(classifyFinishReason(done.finishReason)).toBeUndefined();
    const capped = responsesDialect.interpret(ev('response.incomplete', { response: response('incomplete', { incomplete_details: { reason: 'max_output_tokens' } }) }));
    const filtered = responsesDialect.interpret(ev('response.incomplete', { response: response('incomplete', { incomplete_details: { reason: 'content_filter' } }) }));
    const unstated = responsesDialect.interpret(ev('response.incomplete', { response: response('incomplete', { incomplete_details: null }) }));
    expect([capped, filtered, unstated].map((f) => [f.end, classifyFinishReason(f.finishReason)])).toEqual([
      [true, 'truncated'],
      [true, 'policy'],
      [true, 'truncated'],
    ]);
  });

  it('classifies response.failed and error events by their code', () => {
    const failed = (code: string) => responsesDialect.interpret(ev('response.failed', { response: response('failed', { error: { code, message: 'm' } }) })).error?.cls;
    expect(['server_error', 'rate_limit_exceeded', 'vector_store_timeout', 'invalid_prompt', 'image_content_policy_violation', 'invalid_image_url'].map(failed)).toEqual([
      'server',
      'rate_limit',
      'timeout',
      'policy',
      'policy',
      'bad_request',
    ]);
    expect(responsesDialect.interpret(ev('error', { code: 'rate_limit_exceeded', message: 'slow down', param: null })).error).toEqual({ cls: 'rate_limit', message: 'slow down' });
    expect(responsesDialect.interpret({ event: 'response.output_text.delta', data: '{"type":"response.output_text.delta","delta":"' }).malformed).toBe(true);
  });

  it('reads the first message\'s output_text as the answer, a reasoning item as kept reasoning, a function call as opaque', () => {
    const read = responsesDialect.textReader();
    const kinds = [
      ev('response.created', { response: response('in_progress') }),
      ev('response.output_item.added', { output_index: 0, item: { type: 'reasoning', id: 'rs', summary: [] } }),
      ev('response.output_item.done', { output_index: 0, item: { type: 'reasoning', id: 'rs', summary: [] } }),
      ev('response.output_item.added', { output_index: 1, item: { type: 'message', id: 'msg', content: [] } }),
      ev('response.content_part.added', { output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } }),
      ev('response.output_text.delta', { output_index: 1, content_index: 0, delta: 'Hi' }),
      ev('response.output_text.done', { output_index: 1, content_index: 0, text: 'Hi' }),
      ev('response.output_item.added', { output_index: 2, item: { type: 'function_call', id: 'fc', arguments: '' } }),
      ev('response.function_call_arguments.delta', { output_index: 2, delta: '{' }),
    ].map((e) => read(e));
    expect(kinds).toEqual([
      { kind: 'head' },
      { kind: 'aside', open: true },
      { kind: 'aside', open: false },
      { kind: 'head' },
      { kind: 'head' },
      { kind: 'text', text: 'Hi' },
      { kind: 'tail' },
      { kind: 'opaque' },
      { kind: 'opaque' },
    ]);
  });
});

describe('chat and messages dialects', () => {
  it('chat: tool-call argument deltas are tokens, and usage carries reasoning tokens', () => {
    const chunk = (o: unknown) => ({ event: 'message', data: JSON.stringify(o) });
    expect(chatDialect.interpret(chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a' } }] }, finish_reason: null }] })).token).toBe(true);
    const usage = chatDialect.interpret(chunk({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 40, completion_tokens_details: { reasoning_tokens: 32 } } }));
    expect(usage).toMatchObject({ inputTokens: 5, outputTokens: 40, reasoningTokens: 32 });
    expect(chatDialect.usageBeforeEnd({ stream_options: { include_usage: true } })).toBe(true);
    expect(chatDialect.usageBeforeEnd({})).toBe(false);
  });

  it('messages: thinking, signature and tool-input deltas are tokens; a thinking block is kept reasoning, tool_use opaque', () => {
    const e = (type: string, body: Record<string, unknown>) => ({ event: type, data: JSON.stringify({ type, ...body }) });
    for (const delta of [{ type: 'thinking_delta', thinking: 'x' }, { type: 'signature_delta', signature: 's' }, { type: 'input_json_delta', partial_json: '{' }]) {
      expect(messagesDialect.interpret(e('content_block_delta', { index: 0, delta })).token).toBe(true);
    }
    const read = messagesDialect.textReader();
    expect(
      [
        e('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'abc' } }),
        e('content_block_stop', { index: 0 }),
        e('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
        e('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hi' } }),
        e('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 't', name: 'n', input: {} } }),
      ].map((x) => read(x)),
    ).toEqual([{ kind: 'aside', open: true }, { kind: 'aside', open: false }, { kind: 'head' }, { kind: 'text', text: 'Hi' }, { kind: 'opaque' }]);
  });
});

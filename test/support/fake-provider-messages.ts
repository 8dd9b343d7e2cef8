/**
 * Anthropic messages bodies of the fake provider (`@anthropic-ai/sdk` `resources/messages`
 * types): a text answer or a `tool_use` block (`input_json_delta` pieces, stop_reason
 * `tool_use`), preceded with extended thinking on by a `thinking` block (`thinking_delta`s
 * then one `signature_delta`) or a `redacted_thinking` block.
 */
import { answerText, newAnthropicId, toolInput, piece, sse, toolArguments, tokenText, type AnswerShape, type StreamFrames } from './fake-provider-bodies.ts';

const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabbbbnYDLk8R8u6r6TEw';

function thinkingText(a: AnswerShape, i: number): string {
  return (i === 0 ? 'Let me think about' : '') + tokenText(i + 3);
}

function blocks(a: AnswerShape, toolId: string): unknown[] {
  const out: unknown[] = [];
  if (a.thinking === 'visible') {
    let t = '';
    for (let i = 0; i < a.reasoningTokens; i++) t += thinkingText(a, i);
    out.push({ type: 'thinking', thinking: t, signature: SIGNATURE });
  } else if (a.thinking === 'redacted') {
    out.push({ type: 'redacted_thinking', data: REDACTED });
  }
  if (a.output === 'tool_call') out.push({ type: 'tool_use', id: toolId, name: a.toolName, input: toolInput(toolArguments(a)) });
  else out.push({ type: 'text', text: answerText(a), citations: null });
  return out;
}

function usage(a: AnswerShape, output: number) {
  return { input_tokens: a.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output, service_tier: 'standard' };
}

/** A non-streamed `message`. */
export function messagesJson(a: AnswerShape): string {
  return JSON.stringify({
    id: a.id,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: blocks(a, newAnthropicId('toolu')),
    stop_reason: a.finish,
    stop_sequence: null,
    usage: usage(a, a.tokens + a.reasoningTokens),
  });
}

/** The events of a streamed message. */
export function messagesFrames(a: AnswerShape): StreamFrames {
  const tools = a.output === 'tool_call';
  const args = tools ? toolArguments(a) : '';
  const from = a.from ?? 0;
  // The answer's block comes after the thinking block, when there is one.
  const index = a.thinking ? 1 : 0;
  const lead: string[] = [];
  if (a.thinking === 'visible') {
    lead.push(sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (let i = 0; i < a.reasoningTokens; i++) {
      lead.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: thinkingText(a, i) } }));
    }
    lead.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }));
    lead.push(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
  } else if (a.thinking === 'redacted') {
    lead.push(sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: REDACTED } }));
    lead.push(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
  }
  const open = sse('content_block_start', {
    type: 'content_block_start',
    index,
    content_block: tools ? { type: 'tool_use', id: newAnthropicId('toolu'), name: a.toolName, input: {} } : { type: 'text', text: '' },
  });
  const start = sse('message_start', {
    type: 'message_start',
    message: { id: a.id, type: 'message', role: 'assistant', model: a.model, content: [], stop_reason: null, stop_sequence: null, usage: usage(a, 1) },
  });
  const ping = sse('ping', { type: 'ping' });
  // As the real API: without thinking the answer's block opens before the ping.
  return {
    head: a.thinking ? [start, ping] : [start, open, ping],
    lead: a.thinking ? [...lead, open] : [],
    token: (i) =>
      sse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: tools ? { type: 'input_json_delta', partial_json: piece(args, i - from, a.tokens) } : { type: 'text_delta', text: tokenText(i + (a.shift ?? 0)) },
      }),
    malformed: `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_del\n\n`,
    tail: [
      sse('content_block_stop', { type: 'content_block_stop', index }),
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: a.finish, stop_sequence: null }, usage: { output_tokens: a.tokens + a.reasoningTokens } }),
    ],
    end: sse('message_stop', { type: 'message_stop' }),
    error: (_as, code) => sse('error', { type: 'error', error: { type: code ?? 'overloaded_error', message: 'Overloaded' } }),
  };
}

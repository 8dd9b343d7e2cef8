/**
 * OpenAI chat completions bodies of the fake provider (`openai/resources/chat/completions`
 * types): a text answer or one tool call (`finish_reason: "tool_calls"`, arguments
 * streamed in pieces), and reasoning models' hidden tokens in
 * `usage.completion_tokens_details.reasoning_tokens`.
 */
import { answerText, newItemId, piece, sse, toolArguments, tokenText, type AnswerShape, type StreamFrames } from './fake-provider-bodies.ts';

function usage(a: AnswerShape) {
  const completion = a.tokens + a.reasoningTokens;
  return {
    prompt_tokens: a.inputTokens,
    completion_tokens: completion,
    total_tokens: a.inputTokens + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: a.reasoningTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** A non-streamed `chat.completion`. */
export function chatJson(a: AnswerShape, callId = newItemId('call')): string {
  const message =
    a.output === 'tool_call'
      ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: callId, type: 'function', function: { name: a.toolName, arguments: toolArguments(a) } }] }
      : a.output === 'refusal'
        ? { role: 'assistant', content: null, refusal: answerText(a) }
        : { role: 'assistant', content: answerText(a), refusal: null };
  return JSON.stringify({
    id: a.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: a.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finish }],
    usage: usage(a),
    system_fingerprint: a.fingerprint ?? 'fp_fake0001',
  });
}

/** The `chat.completion.chunk` frames of a streamed answer; `includeUsage` follows `stream_options`. */
export function chatFrames(a: AnswerShape, includeUsage: boolean): StreamFrames {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], u?: unknown) =>
    sse(undefined, {
      id: a.id,
      object: 'chat.completion.chunk',
      created,
      model: a.model,
      system_fingerprint: a.fingerprint ?? 'fp_fake0001',
      choices,
      ...(includeUsage ? { usage: u ?? null } : {}),
    });
  const tail = [chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: a.finish }])];
  if (includeUsage) tail.push(chunk([], usage(a)));
  const tools = a.output === 'tool_call';
  const args = tools ? toolArguments(a) : '';
  const callId = newItemId('call');
  const from = a.from ?? 0;
  return {
    head: [
      chunk([
        {
          index: 0,
          delta: tools
            ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: a.toolName, arguments: '' } }] }
            : a.output === 'refusal'
              ? { role: 'assistant', content: null, refusal: '' }
              : { role: 'assistant', content: '', refusal: null },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    ],
    lead: [],
    token: (i) =>
      tools
        ? chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece(args, i - from, a.tokens) } }] }, logprobs: null, finish_reason: null }])
        : chunk([{ index: 0, delta: { [a.output === 'refusal' ? 'refusal' : 'content']: tokenText(i + (a.shift ?? 0)) }, logprobs: null, finish_reason: null }]),
    malformed: `data: {"id":"${a.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\n\n`,
    tail,
    end: 'data: [DONE]\n\n',
    // OpenAI reports a failure after the headers as a chunk holding only `error`.
    error: (_as, code) =>
      sse(undefined, { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: code ?? null } }),
  };
}

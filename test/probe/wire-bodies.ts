/**
 * Wire bodies of the OpenAI APIs the prober's newer kinds probe, built to the official
 * client's types (`openai/resources/responses/responses.d.ts`, `embeddings.d.ts`,
 * `chat/completions/completions.d.ts`): a `Response` object and its stream events, an
 * embeddings list, a chat completion of a reasoning model, and the error envelope.
 */
import { randomBytes } from 'node:crypto';

const id = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
const nowS = () => Math.floor(Date.now() / 1000);

/** `{error:{message,type,param,code}}`, as OpenAI answers a refused request. */
export function errorEnvelope(message: string, type: string, param: string | null, code: string | null) {
  return { error: { message, type, param, code } };
}

/** What one Responses answer ends as. */
export interface ResponseEnd {
  status: 'completed' | 'incomplete' | 'failed';
  text: string;
  reasoningTokens: number;
  outputTokens: number;
  inputTokens: number;
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  error?: { code: string; message: string };
}

/** A `ResponseOutputMessage` holding `text` (status per the answer's end). */
export function outputMessage(itemId: string, text: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return { id: itemId, type: 'message', role: 'assistant', status, content: text ? [{ type: 'output_text', annotations: [], logprobs: [], text }] : [] };
}

/** A `Response` object (`object: "response"`); `output` holds a reasoning item when the model reasoned. */
export function responseObject(respId: string, model: string, body: Record<string, unknown>, end: ResponseEnd | undefined, itemId: string) {
  const output: unknown[] = [];
  if (end && end.reasoningTokens > 0) output.push({ id: id('rs_'), type: 'reasoning', summary: [] });
  if (end && (end.text || end.status === 'completed')) output.push(outputMessage(itemId, end.text, end.status === 'completed' ? 'completed' : 'incomplete'));
  return {
    id: respId,
    object: 'response',
    created_at: nowS(),
    status: end?.status ?? 'in_progress',
    background: false,
    error: end?.status === 'failed' ? (end.error ?? null) : null,
    incomplete_details: end?.status === 'incomplete' ? { reason: end.incompleteReason ?? 'max_output_tokens' } : null,
    instructions: (body.instructions as string | undefined) ?? null,
    max_output_tokens: (body.max_output_tokens as number | undefined) ?? null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: (body.reasoning as { effort?: string } | undefined)?.effort ?? null, summary: null },
    store: body.store !== false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: end
      ? {
          input_tokens: end.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: end.outputTokens,
          output_tokens_details: { reasoning_tokens: end.reasoningTokens },
          total_tokens: end.inputTokens + end.outputTokens,
        }
      : null,
    user: null,
    metadata: {},
  };
}

/** The SSE events of a streamed Responses answer, `{event, data}` each, in the API's order. */
export function responseEvents(model: string, body: Record<string, unknown>, end: ResponseEnd, pieces: string[]) {
  const respId = id('resp_');
  const itemId = id('msg_');
  let seq = 0;
  const out: Array<{ type: string } & Record<string, unknown>> = [];
  const push = (type: string, fields: Record<string, unknown>) => out.push({ type, ...fields, sequence_number: seq++ });
  const open = responseObject(respId, model, body, undefined, itemId);
  push('response.created', { response: open });
  push('response.in_progress', { response: open });
  if (end.text || end.status === 'completed') {
    const at = { item_id: itemId, output_index: end.reasoningTokens > 0 ? 1 : 0, content_index: 0 };
    push('response.output_item.added', { output_index: at.output_index, item: outputMessage(itemId, '', 'in_progress') });
    push('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
    for (const delta of pieces) push('response.output_text.delta', { ...at, delta, logprobs: [] });
    if (end.status === 'completed') {
      push('response.output_text.done', { ...at, text: end.text, logprobs: [] });
      push('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: end.text } });
      push('response.output_item.done', { output_index: at.output_index, item: outputMessage(itemId, end.text, 'completed') });
    }
  }
  push(`response.${end.status}`, { response: responseObject(respId, model, body, end, itemId) });
  return out;
}

/** A `CreateEmbeddingResponse`: `vectors` as float lists, or base64 float32 when asked. */
export function embeddingsList(model: string, vectors: number[][], encoding: string, promptTokens: number) {
  return {
    object: 'list',
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** A `ChatCompletion` with `completion_tokens_details.reasoning_tokens`. */
export function chatCompletion(model: string, content: string, finish: string, input: number, reasoning: number, output: number) {
  return {
    id: id('chatcmpl-'),
    object: 'chat.completion',
    created: nowS(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: content as string | null, refusal: null as string | null, annotations: [] }, logprobs: null, finish_reason: finish }],
    usage: {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: null,
  };
}

/** The chunks of a streamed chat completion ending in `finish`, then the usage chunk. */
export function chatChunks(model: string, pieces: string[], finish: string, input: number, reasoning: number, output: number) {
  const base = { id: id('chatcmpl-'), object: 'chat.completion.chunk', created: nowS(), model, service_tier: 'default', system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], usage: null });
  return [
    chunk({ role: 'assistant', content: '', refusal: null }, null),
    ...pieces.map((p) => chunk({ content: p }, null)),
    chunk({}, finish),
    { ...base, choices: [], usage: chatCompletion(model, '', finish, input, reasoning, output).usage },
  ];
}

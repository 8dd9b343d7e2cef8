/**
 * OpenAI Responses API bodies of the fake provider (`openai/resources/responses/responses`
 * types): a `response` object with a `reasoning` item (reasoning models), then a `message`
 * with `output_text` or a `function_call`; streamed as `response.created`,
 * `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta` (or `response.function_call_arguments.delta`) …,
 * `*.done`, and `response.completed` — or `response.incomplete` with
 * `incomplete_details.reason` (`max_output_tokens`, `content_filter`). Every event carries
 * its `sequence_number` and an `event:` line of its own type.
 */
import { answerText, newItemId, piece, sse, toolArguments, tokenText, type AnswerShape, type StreamFrames } from './fake-provider-bodies.ts';

interface Ids {
  reasoning: string;
  item: string;
  call: string;
}

function incompleteReason(a: AnswerShape): 'max_output_tokens' | 'content_filter' | undefined {
  if (a.finish === 'length') return 'max_output_tokens';
  if (a.finish === 'content_filter') return 'content_filter';
  return undefined;
}

function usage(a: AnswerShape) {
  const output = a.tokens + a.reasoningTokens;
  return {
    input_tokens: a.inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: a.reasoningTokens },
    total_tokens: a.inputTokens + output,
  };
}

function outputItems(a: AnswerShape, ids: Ids, status: 'completed' | 'incomplete'): unknown[] {
  const out: unknown[] = [];
  if (a.reasoningTokens > 0) out.push({ id: ids.reasoning, type: 'reasoning', summary: [] });
  if (a.output === 'tool_call') {
    out.push({ id: ids.item, type: 'function_call', status, arguments: toolArguments(a), call_id: ids.call, name: a.toolName });
  } else if (a.tokens > 0 || status === 'completed') {
    out.push({ id: ids.item, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: answerText(a) }] });
  }
  return out;
}

function responseObject(a: AnswerShape, ids: Ids, createdAt: number, state: 'in_progress' | 'completed' | 'incomplete' | 'failed', code?: string) {
  const reason = incompleteReason(a);
  return {
    id: a.id,
    object: 'response',
    created_at: createdAt,
    status: state,
    background: false,
    completed_at: state === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: state === 'failed' ? { code: code ?? 'server_error', message: 'The server had an error while processing your request. Sorry about that!' } : null,
    incomplete_details: state === 'incomplete' && reason ? { reason } : null,
    instructions: null,
    max_output_tokens: null,
    model: a.model,
    output: state === 'completed' || state === 'incomplete' ? outputItems(a, ids, state) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: a.reasoningTokens > 0 ? 'medium' : null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: state === 'completed' || state === 'incomplete' ? usage(a) : null,
    user: null,
    metadata: {},
  };
}

function newIds(): Ids {
  return { reasoning: newItemId('rs'), item: newItemId(''), call: newItemId('call') };
}

/** A non-streamed `response` (status `completed`, or `incomplete` with its reason). */
export function responsesJson(a: AnswerShape): string {
  const ids = newIds();
  ids.item = (a.output === 'tool_call' ? 'fc' : 'msg') + ids.item;
  return JSON.stringify(responseObject(a, ids, Math.floor(Date.now() / 1000), incompleteReason(a) ? 'incomplete' : 'completed'));
}

/** A non-streamed `response` whose `status` is `failed` (the error in `error`). */
export function responsesFailedJson(a: AnswerShape, code: string | undefined): string {
  return JSON.stringify(responseObject(a, newIds(), Math.floor(Date.now() / 1000), 'failed', code));
}

/** The events of a streamed response. */
export function responsesFrames(a: AnswerShape): StreamFrames {
  const ids = newIds();
  ids.item = (a.output === 'tool_call' ? 'fc' : 'msg') + ids.item;
  const createdAt = Math.floor(Date.now() / 1000);
  const tools = a.output === 'tool_call';
  const args = tools ? toolArguments(a) : '';
  const from = a.from ?? 0;
  const final = incompleteReason(a) ? 'incomplete' : 'completed';
  // Sequence numbers follow the order events are built in, which is the order they are sent.
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => sse(type, { type, sequence_number: seq++, ...body });
  const outputIndex = a.reasoningTokens > 0 ? 1 : 0;

  const head = [
    ev('response.created', { response: responseObject(a, ids, createdAt, 'in_progress') }),
    ev('response.in_progress', { response: responseObject(a, ids, createdAt, 'in_progress') }),
  ];
  const lead: string[] = [];
  if (a.reasoningTokens > 0) {
    const item = { id: ids.reasoning, type: 'reasoning', summary: [] };
    lead.push(ev('response.output_item.added', { output_index: 0, item }));
    lead.push(ev('response.output_item.done', { output_index: 0, item }));
  }
  if (tools) {
    lead.push(
      ev('response.output_item.added', {
        output_index: outputIndex,
        item: { id: ids.item, type: 'function_call', status: 'in_progress', arguments: '', call_id: ids.call, name: a.toolName },
      }),
    );
  } else {
    lead.push(ev('response.output_item.added', { output_index: outputIndex, item: { id: ids.item, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }));
    lead.push(
      ev('response.content_part.added', { item_id: ids.item, output_index: outputIndex, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }),
    );
  }
  // Units are built on demand, so their sequence numbers are fixed up front from the lead.
  const firstUnitSeq = seq;
  seq += a.tokens;
  const unit = (i: number) => {
    const n = firstUnitSeq + (i - from);
    return tools
      ? sse('response.function_call_arguments.delta', {
          type: 'response.function_call_arguments.delta',
          sequence_number: n,
          item_id: ids.item,
          output_index: outputIndex,
          delta: piece(args, i - from, a.tokens),
        })
      : sse('response.output_text.delta', {
          type: 'response.output_text.delta',
          sequence_number: n,
          item_id: ids.item,
          output_index: outputIndex,
          content_index: 0,
          delta: tokenText(i + (a.shift ?? 0)),
          logprobs: [],
        });
  };
  const items = outputItems(a, ids, final);
  const doneItem = items[items.length - 1];
  const tail: string[] = [];
  if (tools) {
    tail.push(ev('response.function_call_arguments.done', { item_id: ids.item, output_index: outputIndex, name: a.toolName, arguments: args }));
  } else {
    const text = answerText(a);
    tail.push(ev('response.output_text.done', { item_id: ids.item, output_index: outputIndex, content_index: 0, text, logprobs: [] }));
    tail.push(
      ev('response.content_part.done', { item_id: ids.item, output_index: outputIndex, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text } }),
    );
  }
  if (doneItem) tail.push(ev('response.output_item.done', { output_index: outputIndex, item: doneItem }));
  const end = ev(`response.${final}`, { response: responseObject(a, ids, createdAt, final) });
  return {
    head,
    lead,
    token: unit,
    malformed: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"delta":"\n\n',
    tail,
    end,
    error: (as, code) =>
      as === 'failed'
        ? ev('response.failed', { response: responseObject(a, ids, createdAt, 'failed', code) })
        : ev('error', { code: code ?? 'server_error', message: 'The server had an error while processing your request. Sorry about that!', param: null }),
  };
}

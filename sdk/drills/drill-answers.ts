/**
 * The answers a drill injects in place of the provider's, in each API's exact wire shape
 * (read from the `openai` v6 and `@anthropic-ai/sdk` types): a 429 with `retry-after`, a
 * 401, and an answer cut by its token limit — chat `finish_reason: "length"`, Responses
 * `status: "incomplete"` with `incomplete_details.reason: "max_output_tokens"`, Anthropic
 * `stop_reason: "max_tokens"` — as JSON or as the API's event stream. Google's families
 * (`generate`, `embed`) get Google's shapes (`drill-answers-google.ts`).
 */
import { randomBytes } from 'node:crypto';
import { googleAuthRevokedAnswer, googleRateLimitAnswer, googleTruncatedAnswer, isGoogleFamily } from './drill-answers-google.ts';

/** Error body and request-id header of the two API styles. */
const anthropicStyle = (family: string) => family === 'messages';

const TEXT = 'This answer was cut short by a breakerbox';
const WORDS = ['This', ' answer', ' was', ' cut', ' short', ' by', ' a', ' breakerbox'];

function rid(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

function headers(family: string, drillId: string, contentType: string, extra: Record<string, string> = {}): Headers {
  const h = new Headers({ 'content-type': contentType, 'x-breakerbox-drill': drillId, ...extra });
  h.set(anthropicStyle(family) ? 'request-id' : 'x-request-id', rid('req_'));
  return h;
}

function errorAnswer(family: string, drillId: string, status: number, openai: { type: string; code: string; message: string }, anthropic: { type: string; message: string }, extra: Record<string, string> = {}): Response {
  const h = headers(family, drillId, 'application/json', extra);
  const body = anthropicStyle(family)
    ? { type: 'error', error: { type: anthropic.type, message: anthropic.message }, request_id: h.get('request-id') }
    : { error: { message: openai.message, type: openai.type, param: null, code: openai.code } };
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** A 429 as the provider sends it, asking to wait `retryAfterS` seconds. */
export function rateLimitAnswer(family: string, drillId: string, retryAfterS: number): Response {
  if (isGoogleFamily(family)) return googleRateLimitAnswer(drillId, retryAfterS);
  return errorAnswer(
    family,
    drillId,
    429,
    { type: 'requests', code: 'rate_limit_exceeded', message: `Rate limit reached on requests per min (RPM). Please try again in ${retryAfterS}s. (breakerbox drill)` },
    { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization. (breakerbox drill)' },
    { 'retry-after': String(retryAfterS) },
  );
}

/** A 401 for a key taken out of scope. */
export function authRevokedAnswer(family: string, drillId: string): Response {
  if (isGoogleFamily(family)) return googleAuthRevokedAnswer(drillId);
  return errorAnswer(
    family,
    drillId,
    401,
    { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided. (breakerbox drill)' },
    { type: 'authentication_error', message: 'invalid x-api-key (breakerbox drill)' },
  );
}

const sse = (event: string | undefined, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** An answer cut by its token limit, for `family` (`undefined` for families without one, e.g. embeddings); `url` tells a Google stream's framing. */
export function truncatedAnswer(family: string, drillId: string, request: Record<string, unknown>, stream: boolean, url?: URL): Response | undefined {
  if (isGoogleFamily(family)) return googleTruncatedAnswer(family, drillId, stream, url?.searchParams.get('alt') === 'sse');
  const model = typeof request.model === 'string' ? request.model : 'unknown';
  const created = Math.floor(Date.now() / 1000);
  const out = WORDS.length;
  let body: string;
  if (family === 'chat') {
    const id = rid('chatcmpl-');
    const usage = { prompt_tokens: 1, completion_tokens: out, total_tokens: out + 1 };
    if (!stream) {
      body = JSON.stringify({
        id, object: 'chat.completion', created, model, system_fingerprint: null,
        choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'length' }],
        usage,
      });
    } else {
      const chunk = (delta: object, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
      body = sse(undefined, chunk({ role: 'assistant', content: '', refusal: null }, null));
      for (const w of WORDS) body += sse(undefined, chunk({ content: w }, null));
      body += sse(undefined, chunk({}, 'length'));
      if ((request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true) body += sse(undefined, { id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices: [], usage });
      body += sse(undefined, '[DONE]');
    }
  } else if (family === 'responses') {
    const id = rid('resp_');
    const msgId = rid('msg_');
    const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: out, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: out + 1 };
    const part = { type: 'output_text', text: TEXT, annotations: [], logprobs: [] };
    const item = { id: msgId, type: 'message', status: 'incomplete', role: 'assistant', content: [part] };
    const response = (status: string, output: object[], extra: object) => ({
      id, object: 'response', created_at: created, status, error: null, incomplete_details: null, instructions: null,
      max_output_tokens: request.max_output_tokens ?? null, model, output, parallel_tool_calls: true, previous_response_id: null,
      temperature: 1, text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: null, metadata: {},
      ...extra,
    });
    const final = response('incomplete', [item], { incomplete_details: { reason: 'max_output_tokens' }, usage });
    if (!stream) body = JSON.stringify(final);
    else {
      let n = 0;
      const ev = (type: string, data: object) => sse(type, { type, sequence_number: n++, ...data });
      body = ev('response.created', { response: response('in_progress', [], {}) });
      body += ev('response.in_progress', { response: response('in_progress', [], {}) });
      body += ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      body += ev('response.content_part.added', { item_id: msgId, output_index: 0, content_index: 0, part: { ...part, text: '' } });
      for (const w of WORDS) body += ev('response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta: w, logprobs: [] });
      body += ev('response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text: TEXT, logprobs: [] });
      body += ev('response.content_part.done', { item_id: msgId, output_index: 0, content_index: 0, part });
      body += ev('response.output_item.done', { output_index: 0, item });
      body += ev('response.incomplete', { response: final });
    }
  } else if (family === 'messages') {
    const id = rid('msg_');
    if (!stream) {
      body = JSON.stringify({
        id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: TEXT }],
        stop_reason: 'max_tokens', stop_sequence: null,
        usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: out },
      });
    } else {
      body = sse('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } });
      body += sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      for (const w of WORDS) body += sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } });
      body += sse('content_block_stop', { type: 'content_block_stop', index: 0 });
      body += sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: out } });
      body += sse('message_stop', { type: 'message_stop' });
    }
  } else {
    return undefined;
  }
  return new Response(body, { status: 200, headers: headers(family, drillId, stream ? 'text/event-stream' : 'application/json') });
}

/** `key` renamed: the field a schema requires is gone, an unknown one appears. */
const renamedKey = (key: string) => `${key}_renamed`;

function renameFirst(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k === keys[0] ? renamedKey(k) : k] = (v as Record<string, unknown>)[k];
  return out;
}

function renameInJson(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const r = renameFirst(JSON.parse(text));
    return r === undefined ? undefined : JSON.stringify(r);
  } catch {
    return undefined;
  }
}

/**
 * The provider's JSON answer with one field of its structured output renamed (a tool
 * call's arguments, else JSON text); unchanged when it holds no JSON object.
 */
export function renameOneField(family: string, body: Record<string, unknown>): Record<string, unknown> {
  const b = structuredClone(body);
  if (family === 'chat') {
    const message = (b.choices as Array<{ message?: Record<string, unknown> }> | undefined)?.[0]?.message;
    const fn = (message?.tool_calls as Array<{ function?: { arguments?: unknown } }> | undefined)?.[0]?.function;
    if (fn) fn.arguments = renameInJson(fn.arguments) ?? fn.arguments;
    else if (message) message.content = renameInJson(message.content) ?? message.content;
  } else if (family === 'responses') {
    const items = (b.output as Array<Record<string, unknown>> | undefined) ?? [];
    const call = items.find((i) => i.type === 'function_call');
    if (call) call.arguments = renameInJson(call.arguments) ?? call.arguments;
    else for (const i of items) for (const c of (i.content as Array<Record<string, unknown>> | undefined) ?? []) if (c.type === 'output_text') c.text = renameInJson(c.text) ?? c.text;
  } else if (family === 'messages') {
    const blocks = (b.content as Array<Record<string, unknown>> | undefined) ?? [];
    const use = blocks.find((c) => c.type === 'tool_use');
    if (use) use.input = renameFirst(use.input) ?? use.input;
    else for (const c of blocks) if (c.type === 'text') c.text = renameInJson(c.text) ?? c.text;
  } else if (family === 'generate') {
    const parts = ((b.candidates as Array<{ content?: { parts?: Array<Record<string, unknown>> } }> | undefined)?.[0]?.content?.parts) ?? [];
    const call = parts.find((p) => p.functionCall)?.functionCall as { args?: unknown } | undefined;
    if (call) call.args = renameFirst(call.args) ?? call.args;
    else for (const p of parts) if (typeof p.text === 'string' && p.thought !== true) p.text = renameInJson(p.text) ?? p.text;
  }
  return b;
}

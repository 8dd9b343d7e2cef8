/**
 * The success path of the fake provider: what the answer to one request is (its length
 * under the request's cap, hidden reasoning tokens, text or tool call, finish reason) and
 * how it is written — one JSON body, or SSE frames with the stream faults applied between
 * them (`fake-provider.ts` documents each fault).
 */
import type { ServerResponse } from 'node:http';
import { baseHeaders, estimateInputTokens, newResponseId, type AnswerShape, type Api, type Dialect, type StreamFrames } from './fake-provider-bodies.ts';
import { chatFrames, chatJson } from './fake-provider-chat.ts';
import { embeddingsJson } from './fake-provider-embeddings.ts';
import { messagesFrames, messagesJson } from './fake-provider-messages.ts';
import { prefillOf, prefilledTokens } from './fake-provider-prefill.ts';
import { responsesFailedJson, responsesFrames, responsesJson } from './fake-provider-responses.ts';
import type { Attempt, Fault } from './fake-provider-types.ts';
import { flushed, numberOr, sleep } from './fake-provider-util.ts';

/** Server-wide answer settings. */
export interface AnswerDefaults {
  tokens: number;
  tokenIntervalMs: number;
  reasoningModels: (model: string) => boolean;
  reasoningTokens: number;
  /** Responses: a smaller `max_output_tokens` is refused with 400 (0: never). */
  responsesMinOutputTokens: number;
}

/** The provider's dialect (error envelope, headers) of an API. */
export function dialectOfApi(api: Api): Dialect {
  return api === 'messages' ? 'anthropic' : api === 'generate' || api === 'embed' ? 'google' : 'openai';
}

const EFFORT: Record<string, number> = { minimal: 0, none: 0, low: 0.5, medium: 1, high: 2, xhigh: 3 };

/** Hidden tokens this request spends before answering. */
function reasoningOf(api: Api, b: Record<string, unknown>, fault: Fault, o: AnswerDefaults): number {
  const base = fault.reasoningTokens ?? o.reasoningTokens;
  if (api === 'messages') {
    const t = b.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
    if (t?.type !== 'enabled' && t?.type !== 'adaptive') return 0;
    return Math.min(base, numberOr(t.budget_tokens, base));
  }
  if (!o.reasoningModels(String(b.model ?? ''))) return 0;
  const effort = api === 'responses' ? (b.reasoning as { effort?: unknown } | undefined)?.effort : b.reasoning_effort;
  return Math.round(base * (EFFORT[String(effort ?? 'medium')] ?? 1));
}

/** Whether the request forces a tool call. */
function forcesTool(b: Record<string, unknown>): boolean {
  const c = b.tool_choice as string | { type?: unknown } | undefined;
  if (!Array.isArray(b.tools) || b.tools.length === 0 || c === undefined) return false;
  if (typeof c === 'string') return c === 'required' || c === 'any';
  return c.type === 'function' || c.type === 'tool' || c.type === 'any';
}

function toolName(b: Record<string, unknown>): string {
  const t = (Array.isArray(b.tools) ? b.tools[0] : undefined) as { name?: unknown; function?: { name?: unknown } } | undefined;
  const name = t?.function?.name ?? t?.name;
  return typeof name === 'string' ? name : 'lookup';
}

/** The answer `b` gets under `fault`. */
export function shapeOf(api: Api, b: Record<string, unknown>, fault: Fault, o: AnswerDefaults): AnswerShape {
  const d = dialectOfApi(api);
  const wanted = fault.tokens ?? o.tokens;
  const reasoning = reasoningOf(api, b, fault, o);
  const capField = api === 'responses' ? b.max_output_tokens : (b.max_completion_tokens ?? b.max_tokens);
  const cap = numberOr(capField, Infinity);
  // A prefilled turn continues after the tokens it already holds.
  const from = prefilledTokens(prefillOf(d, b), wanted);
  // Reasoning is spent first and counts against the cap, as on the real APIs.
  const room = Math.max(0, cap - reasoning);
  const spent = Math.min(reasoning, cap);
  const tokens = Math.max(0, Math.min(wanted, room + from));
  const asked = fault.output ?? (forcesTool(b) ? 'tool_call' : 'text');
  const output = asked === 'refusal' && api !== 'chat' ? 'text' : asked;
  let finish = api === 'messages' ? (output === 'tool_call' ? 'tool_use' : 'end_turn') : output === 'tool_call' ? 'tool_calls' : 'stop';
  if (tokens < wanted || fault.kind === 'finish_length') finish = api === 'messages' ? 'max_tokens' : 'length';
  if (fault.kind === 'content_filter') finish = api === 'messages' ? 'refusal' : 'content_filter';
  return {
    id: newResponseId(api),
    model: fault.servedModel ?? String(b.model ?? ''),
    tokens: tokens - from,
    from,
    shift: fault.textShift ?? 0,
    inputTokens: estimateInputTokens(b),
    finish,
    output,
    toolName: fault.toolName ?? toolName(b),
    ...(fault.text !== undefined ? { text: fault.text } : {}),
    ...(fault.toolArgs !== undefined ? { args: fault.toolArgs } : {}),
    ...(fault.fingerprint !== undefined ? { fingerprint: fault.fingerprint } : {}),
    reasoningTokens: spent,
    thinking: api === 'messages' && spent > 0 ? (fault.redactedThinking ? 'redacted' : 'visible') : undefined,
  };
}

function jsonBody(api: Api, b: Record<string, unknown>, a: AnswerShape, fault: Fault): string {
  if (api === 'responses' && fault.kind === 'stream_error') return responsesFailedJson(a, fault.code);
  if (api === 'embeddings') return embeddingsJson(b, a.inputTokens, fault.kind === 'bad_embeddings' ? fault.how : undefined);
  if (api === 'responses') return responsesJson(a);
  if (api === 'messages') return messagesJson(a);
  return chatJson(a);
}

function framesOf(api: Api, b: Record<string, unknown>, a: AnswerShape): StreamFrames {
  if (api === 'responses') return responsesFrames(a);
  if (api === 'messages') return messagesFrames(a);
  const streamOptions = b.stream_options as { include_usage?: unknown } | undefined;
  return chatFrames(a, streamOptions?.include_usage === true);
}

/** Writes the answer to `b` under `fault` (JSON, or SSE for a streamed request). */
export async function writeAnswer(api: Api, b: Record<string, unknown>, fault: Fault, attempt: Attempt, res: ServerResponse, signal: AbortSignal, o: AnswerDefaults): Promise<void> {
  const shape = shapeOf(api, b, fault, o);
  const { from = 0 } = shape;
  const tokens = shape.tokens + from;
  const headers = baseHeaders(dialectOfApi(api), attempt.requestId);
  const interval = fault.tokenIntervalMs ?? o.tokenIntervalMs;
  attempt.status = 200;

  if (b.stream !== true || api === 'embeddings') {
    if (fault.kind === 'slow_first_token') await sleep(fault.ms, signal);
    if (signal.aborted) return;
    // Vectors of another size than asked are answered as if that size had been asked for.
    const sized = api === 'embeddings' && fault.embeddingDimensions ? { ...b, dimensions: fault.embeddingDimensions } : b;
    const full = jsonBody(api, sized, shape, fault);
    if (fault.kind === 'malformed_chunk') {
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      res.end(full.slice(0, Math.floor(full.length / 2)));
      return;
    }
    if (fault.kind === 'cut_stream' || fault.kind === 'stall') {
      res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
      await flushed(res, full.slice(0, Math.floor(full.length / 2)));
      if (fault.kind === 'cut_stream') res.destroy();
      return;
    }
    attempt.tokensSent = shape.tokens;
    res.writeHead(200, { ...headers, 'content-type': 'application/json' });
    res.end(full);
    return;
  }

  const frames = framesOf(api, b, shape);
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  // A cut must come after what was written has reached the wire, or the reset would swallow it.
  let lastWrite = flushed(res, frames.head.join(''));
  let led = false;
  const lead = () => {
    if (led) return;
    led = true;
    if (frames.lead.length) lastWrite = flushed(res, frames.lead.join(''));
  };
  const cut = async () => {
    await lastWrite;
    if ((fault as { how?: string }).how === 'end') res.end();
    else res.destroy();
  };
  const failMidStream = () => {
    const f = fault as { as?: 'failed' | 'error'; code?: string };
    res.end(frames.error(f.as ?? 'failed', f.code));
  };
  for (let i = from; i < tokens; i++) {
    const wait = i === from && fault.kind === 'slow_first_token' ? fault.ms : interval;
    await sleep(wait, signal);
    if (signal.aborted) return;
    lead();
    if (i === from && fault.thinkingMs) {
      await sleep(fault.thinkingMs, signal);
      if (signal.aborted) return;
    }
    if (fault.kind === 'cut_stream' && i === fault.afterTokens) return cut();
    if (fault.kind === 'stall' && i === fault.afterTokens) return;
    if (fault.kind === 'stream_error' && i === fault.afterTokens) return failMidStream();
    if (fault.kind === 'malformed_chunk' && i === fault.afterTokens) res.write(frames.malformed);
    lastWrite = flushed(res, frames.token(i));
    attempt.tokensSent = i + 1 - from;
  }
  if (tokens <= from && fault.kind === 'slow_first_token') await sleep(fault.ms, signal);
  if (signal.aborted) return;
  lead();
  // Faults positioned at or past the last token still apply, before the tail.
  if (fault.kind === 'cut_stream' && fault.afterTokens >= tokens) return cut();
  if (fault.kind === 'stall' && fault.afterTokens >= tokens) return;
  if (fault.kind === 'stream_error' && fault.afterTokens >= tokens) return failMidStream();
  for (const f of frames.tail) res.write(f);
  if (fault.kind === 'no_end_event') {
    if (!fault.keepOpen) res.end();
    return;
  }
  res.end(frames.end);
}

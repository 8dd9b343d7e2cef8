/**
 * The stream dialect of the OpenAI Responses API (event types from the official client's
 * `resources/responses/responses.d.ts`): `response.created` / `in_progress` / `queued`,
 * output items (`message` with `output_text`, `reasoning`, `function_call`, built-in tool
 * calls) opened by `response.output_item.added`, filled by `*.delta` events and closed by
 * `*.done`; the stream ends with `response.completed`, or `response.incomplete`
 * (`incomplete_details.reason`: `max_output_tokens` → truncated, `content_filter` →
 * policy), or fails with `response.failed` / `error`. Usage (with
 * `output_tokens_details.reasoning_tokens`) comes with the terminal event only.
 *
 * Every `*.delta` event is a token for the first-token and idle limits. For rescue, the
 * first message's `output_text` is the answer's text; a finished reasoning item is kept
 * as delivered (a regeneration's own is dropped); function and tool calls are opaque.
 */
import type { SseEvent } from '@breakerbox/protocol';
import { classifyErrorBody } from '@breakerbox/protocol';
import { HEAD, MALFORMED, NOTHING, OPAQUE, TAIL, errorOf, eventName, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';

interface ResponseBody {
  status?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
  incomplete_details?: { reason?: unknown } | null;
  usage?: Record<string, unknown> | null;
}

function withUsage(info: FrameInfo, r: ResponseBody | undefined): FrameInfo {
  const u = r?.usage;
  if (!u || typeof u !== 'object') return info;
  if (typeof u.input_tokens === 'number') info.inputTokens = u.input_tokens;
  if (typeof u.output_tokens === 'number') info.outputTokens = u.output_tokens;
  const cached = (u.input_tokens_details as { cached_tokens?: unknown } | undefined)?.cached_tokens;
  if (typeof cached === 'number') info.cachedTokens = cached;
  const reasoning = (u.output_tokens_details as { reasoning_tokens?: unknown } | undefined)?.reasoning_tokens;
  if (typeof reasoning === 'number') info.reasoningTokens = reasoning;
  return info;
}

/** The finish reason of a terminal response object: `completed`, or why it is incomplete. */
export function responseFinish(r: ResponseBody): string | undefined {
  if (r.status === 'completed') return 'completed';
  // An incomplete answer without a stated reason is still not whole: read it as truncated.
  if (r.status === 'incomplete') return typeof r.incomplete_details?.reason === 'string' ? r.incomplete_details.reason : 'max_output_tokens';
  return undefined;
}

/** A failed response's error, classified by the shared taxonomy (`server` when it names nothing known). */
export function responseFailure(r: ResponseBody): { cls: NonNullable<FrameInfo['error']>['cls']; message: string } {
  const e = r.error ?? {};
  const code = typeof e.code === 'string' ? e.code : '';
  // Responses-only codes the shared taxonomy does not name: policy refusals and bad inputs.
  const cls = /policy|invalid_prompt/.test(code)
    ? 'policy'
    : /^(invalid_|image_|unsupported_|empty_|failed_to_download|data_residency)/.test(code)
      ? 'bad_request'
      : (classifyErrorBody({ error: e }) ?? 'server');
  return { cls, message: typeof e.message === 'string' ? e.message : `response failed${code ? ` (${code})` : ''}` };
}

function interpret(e: SseEvent): FrameInfo {
  const o = jsonOf(e);
  if (!o) return MALFORMED;
  const type = eventName(e, o);
  if (type.endsWith('.delta')) return { malformed: false, token: true, end: false };
  switch (type) {
    case 'response.completed':
    case 'response.incomplete': {
      const r = (o.response ?? {}) as ResponseBody;
      return withUsage({ malformed: false, token: false, end: true, finishReason: responseFinish(r) ?? (type === 'response.completed' ? 'completed' : 'max_output_tokens') }, r);
    }
    case 'response.failed': {
      const r = (o.response ?? {}) as ResponseBody;
      return withUsage({ malformed: false, token: false, end: false, error: responseFailure(r) }, r);
    }
    case 'error':
      // The Responses error event carries `code` and `message` at its top level.
      return { malformed: false, token: false, end: false, error: typeof o.code === 'string' ? responseFailure({ error: { code: o.code, message: o.message } }) : errorOf(o) };
    default:
      return NOTHING;
  }
}

function textReader() {
  const items = new Map<number, string>();
  let textItem: number | undefined;
  return (e: SseEvent): FrameText => {
    const o = jsonOf(e);
    if (!o) return OPAQUE;
    const type = eventName(e, o);
    const at = typeof o.output_index === 'number' ? o.output_index : -1;
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        return HEAD;
      case 'response.output_item.added': {
        const kind = String((o.item as { type?: unknown } | undefined)?.type ?? '');
        items.set(at, kind);
        if (kind === 'reasoning') return { kind: 'aside', open: true };
        if (kind === 'message' && textItem === undefined) {
          textItem = at;
          return HEAD;
        }
        return OPAQUE;
      }
      case 'response.content_part.added':
        return at === textItem && o.content_index === 0 && (o.part as { type?: unknown } | undefined)?.type === 'output_text' ? HEAD : OPAQUE;
      case 'response.output_text.delta':
        return at === textItem && o.content_index === 0 && typeof o.delta === 'string' ? { kind: 'text', text: o.delta } : OPAQUE;
      case 'response.output_item.done':
        return items.get(at) === 'reasoning' ? { kind: 'aside', open: false } : TAIL;
      default:
        if (type.startsWith('response.reasoning')) return items.get(at) === 'reasoning' ? { kind: 'aside', open: true } : OPAQUE;
        return type.endsWith('.delta') ? OPAQUE : TAIL;
    }
  };
}

/** The OpenAI Responses API. */
export const responsesDialect: StreamDialect = {
  family: 'responses',
  endEvent: 'response.completed',
  interpret,
  textReader,
  withText(e, t) {
    const o = JSON.parse(e.data) as { delta: string };
    o.delta = t;
    return { event: e.event, data: JSON.stringify(o) };
  },
  // Usage comes with the terminal event, never before it.
  usageBeforeEnd: () => false,
};

/**
 * What every wire body of the fake provider shares: ids, headers, error envelopes, the
 * answer's words and the shape of one answer. The bodies of each API live in their own
 * file (`fake-provider-chat.ts`, `-messages.ts`, `-responses.ts`, `-embeddings.ts`);
 * shapes follow the official clients' types (ids, usage, error envelopes) so clients and
 * classifiers are exercised on what they will meet.
 */
import { randomBytes } from 'node:crypto';

/** Which provider's conventions a request follows (error envelope, headers, ids). */
export type Dialect = 'openai' | 'anthropic' | 'google';

/**
 * Which API a request calls: OpenAI chat completions, Responses, embeddings, Anthropic
 * messages, or Google's GenerateContent (`generate`) and embeddings (`embed`) — the Gemini
 * API and Vertex AI, served by `fake-provider-gemini.ts`.
 */
export type Api = 'chat' | 'responses' | 'embeddings' | 'messages' | 'generate' | 'embed';

const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.'];

/** The text of token `i` of a fake answer (one word per token). */
export function tokenText(i: number): string {
  return WORDS[i % WORDS.length]!;
}

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function base62(n: number): string {
  const bytes = randomBytes(n);
  let s = '';
  for (const b of bytes) s += B62[b % 62];
  return s;
}

/** A provider request id in the dialect's format (`x-request-id` / `request-id`). */
export function newRequestId(dialect: Dialect): string {
  return dialect === 'openai' ? `req_${randomBytes(16).toString('hex')}` : `req_${base62(24)}`;
}

/** A response/message id in the API's format. */
export function newResponseId(api: Api): string {
  if (api === 'messages') return `msg_${base62(24)}`;
  if (api === 'responses') return `resp_${randomBytes(24).toString('hex')}`;
  return `chatcmpl-${base62(29)}`;
}

/** An id with a prefix and random hex, as OpenAI's item and call ids (`msg_…`, `fc_…`, `call_…`). */
export function newItemId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** An Anthropic-style id (`toolu_…`). */
export function newAnthropicId(prefix: string): string {
  return `${prefix}_${base62(24)}`;
}

/** Headers every answer of the dialect carries. */
export function baseHeaders(dialect: Dialect, requestId: string): Record<string, string> {
  return dialect === 'openai'
    ? {
        'x-request-id': requestId,
        'openai-version': '2020-10-01',
        'openai-processing-ms': '42',
        'x-ratelimit-limit-requests': '10000',
        'x-ratelimit-remaining-requests': '9999',
      }
    : {
        'request-id': requestId,
        'anthropic-ratelimit-requests-limit': '4000',
        'anthropic-ratelimit-requests-remaining': '3999',
      };
}

/** Roughly four characters per token, like the real tokenisers on English text. */
export function estimateInputTokens(body: unknown): number {
  const b = (body ?? {}) as { messages?: unknown; system?: unknown; input?: unknown; instructions?: unknown };
  return Math.max(1, Math.ceil(JSON.stringify([b.system ?? b.instructions ?? '', b.messages ?? b.input ?? '']).length / 4));
}

/** An error answer: status, JSON (or, for OpenAI's 502/504, an HTML gateway page) body. */
export interface ErrorAnswer {
  status: number;
  body: string;
  contentType: string;
}

/**
 * The error envelope of the dialect. `type`/`code`/`message` default to what the real API
 * sends for that status.
 */
export function errorAnswer(
  dialect: Dialect,
  status: number,
  requestId: string,
  over: { type?: string; code?: string | null; message?: string } = {},
): ErrorAnswer {
  if (dialect === 'openai') {
    if ((status === 502 || status === 504) && !over.type && !over.code && !over.message) {
      // OpenAI's edge answers gateway errors with an HTML page, not JSON.
      const page = `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n`;
      return { status, body: page, contentType: 'text/html' };
    }
    const d = OPENAI_DEFAULTS[status] ?? OPENAI_DEFAULTS[status >= 500 ? 500 : 400]!;
    const error = {
      message: over.message ?? d.message,
      type: over.type ?? d.type,
      param: null,
      code: over.code === undefined ? d.code : over.code,
    };
    return { status, body: JSON.stringify({ error }), contentType: 'application/json' };
  }
  const d = ANTHROPIC_DEFAULTS[status] ?? ANTHROPIC_DEFAULTS[status >= 500 ? 500 : 400]!;
  const error = { type: over.type ?? d.type, message: over.message ?? d.message };
  return { status, body: JSON.stringify({ type: 'error', error, request_id: requestId }), contentType: 'application/json' };
}

const OPENAI_DEFAULTS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: "Invalid request: 'messages' is malformed." },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
  },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  422: { type: 'invalid_request_error', code: null, message: 'Unprocessable Entity' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached on requests per min (RPM). Please try again in 2s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
  529: { type: 'server_error', code: 'overloaded', message: 'The server is overloaded.' },
};

const ANTHROPIC_DEFAULTS: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'messages: field required' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'model: not found' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization of 50 requests per minute.' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

/** What one completed answer contains. */
export interface AnswerShape {
  id: string;
  model: string;
  /** Content units this answer sends after `from`: words of text, or pieces of tool-call arguments. */
  tokens: number;
  /** Index of the first token (a continuation of a prefilled turn starts past 0). */
  from?: number;
  /** Word offset of the text (a different answer). */
  shift?: number;
  inputTokens: number;
  /** Chat `finish_reason`, Anthropic `stop_reason`, or the Responses status reason (`stop`, `length`, `content_filter`, `tool_calls`). */
  finish: string;
  /** A text answer, one tool call whose arguments are streamed in `tokens` pieces, or (chat) a refusal. */
  output: 'text' | 'tool_call' | 'refusal';
  /** Name of the called tool (the request's first tool). */
  toolName: string;
  /** Hidden reasoning tokens spent before the answer (reasoning models; Anthropic thinking). */
  reasoningTokens: number;
  /** Anthropic: a `thinking` block (with signature) or a `redacted_thinking` block before the answer. */
  thinking?: 'visible' | 'redacted';
  /** The fault's verbatim text / tool arguments (non-streamed answers). */
  text?: string;
  args?: string;
  /** Chat `system_fingerprint`. */
  fingerprint?: string;
}

/** The answer's text from `from` for `tokens` words. */
export function answerText(a: AnswerShape): string {
  if (a.text !== undefined) return a.text;
  let text = '';
  for (let i = a.from ?? 0; i < (a.from ?? 0) + a.tokens; i++) text += tokenText(i + (a.shift ?? 0));
  return text;
}

/** A tool call's arguments (a JSON object) for an answer of `n` units. */
export function toolArguments(a: AnswerShape): string {
  if (a.args !== undefined) return a.args;
  let words = '';
  for (let i = 0; i < Math.max(1, a.tokens); i++) words += tokenText(i + (a.shift ?? 0));
  return JSON.stringify({ query: words, limit: a.tokens });
}

/** Piece `i` of `whole` split into `n` nearly equal pieces (the last takes the rest). */
export function piece(whole: string, i: number, n: number): string {
  const size = Math.max(1, Math.floor(whole.length / Math.max(1, n)));
  return i === n - 1 ? whole.slice(i * size) : whole.slice(i * size, (i + 1) * size);
}

/** One SSE event, with an `event:` line when `event` is given. */
export function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** SSE frames a streamed answer is made of, split so faults can cut between them. */
export interface StreamFrames {
  /** Frames before the first content (chat: role chunk; messages: message_start, ping; Responses: created, in_progress). */
  head: string[];
  /** Frames sent just before the first unit, after any first-token delay: reasoning items, thinking blocks, the opening of the answer's block. */
  lead: string[];
  /** The frame(s) of unit `i` (a word, or a piece of tool-call arguments). */
  token(i: number): string;
  /** A frame of broken JSON, for the malformed-chunk fault. */
  malformed: string;
  /** Frames after the last unit that carry the finish reason and usage. */
  tail: string[];
  /** The end event: `data: [DONE]`, `message_stop`, `response.completed` / `response.incomplete`. */
  end: string;
  /** A mid-stream provider error in the API's own form (`as: 'failed'` is the Responses `response.failed`). */
  error(as: 'failed' | 'error', code: string | undefined): string;
}

/** A tool call's arguments as the object APIs that parse them send (Anthropic `input`, Gemini `args`); broken JSON becomes `{}`. */
export function toolInput(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return {};
  }
}

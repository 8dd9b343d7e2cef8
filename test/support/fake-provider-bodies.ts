/**
 * Realistic wire bodies for the fake provider: OpenAI chat completions and Anthropic
 * messages, JSON and SSE, success and error. Shapes follow the real APIs (ids, usage,
 * error envelopes) so clients and classifiers are exercised on what they will meet.
 */
import { randomBytes } from 'node:crypto';

/** Which API family a request speaks. */
export type Dialect = 'openai' | 'anthropic';

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

/** A response/message id in the dialect's format. */
export function newResponseId(dialect: Dialect): string {
  return dialect === 'openai' ? `chatcmpl-${base62(29)}` : `msg_${base62(24)}`;
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
  const b = (body ?? {}) as { messages?: unknown; system?: unknown };
  return Math.max(1, Math.ceil(JSON.stringify([b.system ?? '', b.messages ?? '']).length / 4));
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
  /** Tokens this answer sends (after `from`). */
  tokens: number;
  /** Index of the first token (a continuation of a prefilled turn starts past 0). */
  from?: number;
  /** Word offset of the text (a different answer). */
  shift?: number;
  inputTokens: number;
  /** OpenAI `finish_reason` or Anthropic `stop_reason`. */
  finish: string;
}

/** A non-streamed success body. */
export function jsonAnswer(dialect: Dialect, a: AnswerShape): string {
  let text = '';
  for (let i = a.from ?? 0; i < (a.from ?? 0) + a.tokens; i++) text += tokenText(i + (a.shift ?? 0));
  if (dialect === 'openai') {
    return JSON.stringify({
      id: a.id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: a.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: a.finish }],
      usage: { prompt_tokens: a.inputTokens, completion_tokens: a.tokens, total_tokens: a.inputTokens + a.tokens },
      system_fingerprint: 'fp_fake0001',
    });
  }
  return JSON.stringify({
    id: a.id,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: [{ type: 'text', text }],
    stop_reason: a.finish,
    stop_sequence: null,
    usage: { input_tokens: a.inputTokens, output_tokens: a.tokens },
  });
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** SSE frames a streamed answer is made of, split so faults can cut between them. */
export interface StreamFrames {
  /** Frames before the first token (OpenAI: role chunk; Anthropic: message_start, content_block_start, ping). */
  head: string[];
  /** One frame per token. */
  token(i: number): string;
  /** A frame of broken JSON, for the malformed-chunk fault. */
  malformed: string;
  /** Frames after the last token that carry the finish reason and usage. */
  tail: string[];
  /** The end event: `data: [DONE]` or `message_stop`. */
  end: string;
}

/** Builds the frames of a streamed answer. `includeUsage` follows OpenAI's `stream_options`. */
export function streamFrames(dialect: Dialect, a: AnswerShape, includeUsage: boolean): StreamFrames {
  if (dialect === 'openai') {
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices: unknown[], usage?: unknown) =>
      sse(undefined, {
        id: a.id,
        object: 'chat.completion.chunk',
        created,
        model: a.model,
        system_fingerprint: 'fp_fake0001',
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      });
    const tail = [chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: a.finish }])];
    if (includeUsage) {
      tail.push(chunk([], { prompt_tokens: a.inputTokens, completion_tokens: a.tokens, total_tokens: a.inputTokens + a.tokens }));
    }
    return {
      head: [chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }])],
      token: (i) => chunk([{ index: 0, delta: { content: tokenText(i + (a.shift ?? 0)) }, logprobs: null, finish_reason: null }]),
      malformed: `data: {"id":"${a.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\n\n`,
      tail,
      end: 'data: [DONE]\n\n',
    };
  }
  return {
    head: [
      sse('message_start', {
        type: 'message_start',
        message: {
          id: a.id,
          type: 'message',
          role: 'assistant',
          model: a.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: a.inputTokens, output_tokens: 1 },
        },
      }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse('ping', { type: 'ping' }),
    ],
    token: (i) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: tokenText(i + (a.shift ?? 0)) } }),
    malformed: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n',
    tail: [
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: a.finish, stop_sequence: null }, usage: { output_tokens: a.tokens } }),
    ],
    end: sse('message_stop', { type: 'message_stop' }),
  };
}

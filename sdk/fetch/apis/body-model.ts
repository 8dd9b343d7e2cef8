/**
 * OpenAI-compatible APIs and Anthropic's Messages API: the endpoint is the path's suffix
 * (`…/chat/completions`, `…/messages`, `…/responses`, `…/embeddings`, `…/completions`), the
 * model is the body's `model`, a stream is `"stream": true`. Any host: OpenAI, Anthropic,
 * Azure's `/openai/v1/…`, Together, Groq, a gateway.
 */
import { jsonAnswerFailure, jsonFacts } from '../json-answer.ts';
import type { StreamDialect } from '../../streams/stream-dialect.ts';
import { chatDialect } from '../../streams/dialect-chat.ts';
import { messagesDialect } from '../../streams/dialect-messages.ts';
import { responsesDialect } from '../../streams/dialect-responses.ts';
import { isEventStreamType, sseFraming } from '../../streams/stream-framing.ts';
import { rebase, withApiKey, type ModelApi, type ModelCall } from './model-api.ts';

const ENDPOINTS: ReadonlyArray<readonly [string, string]> = [
  ['/chat/completions', 'chat'],
  ['/messages', 'messages'],
  ['/embeddings', 'embeddings'],
  ['/responses', 'responses'],
  ['/completions', 'completions'],
];

/** The endpoint family of a path and the index where its endpoint part starts, or undefined. */
export function endpointOf(pathname: string): { family: string; at: number } | undefined {
  const path = pathname.replace(/\/+$/, '');
  for (const [suffix, family] of ENDPOINTS) {
    if (path.endsWith(suffix)) return { family, at: path.length - suffix.length };
  }
  return undefined;
}

/** The stream dialect of a body-model family (chat's for the OpenAI-compatible others). */
export function bodyModelDialect(family: string): StreamDialect {
  return family === 'messages' ? messagesDialect : family === 'responses' ? responsesDialect : chatDialect;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The OpenAI-compatible and Anthropic APIs. */
export const bodyModelApi: ModelApi = {
  id: 'openai-compatible',
  read(url, body): ModelCall | undefined {
    if (typeof body.model !== 'string') return undefined;
    const ep = endpointOf(url.pathname);
    if (!ep) return undefined;
    return { api: bodyModelApi, family: ep.family, model: body.model, stream: body.stream === true, at: ep.at };
  },
  retarget(call, req, to) {
    return {
      url: to.baseURL ? rebase(req.url, to.baseURL, call.at) : req.url,
      headers: to.apiKey ? withApiKey(req.headers, to.apiKey, call.family === 'messages' ? 'x-api-key' : 'authorization') : req.headers,
      body: to.model ? { ...req.body, model: to.model } : req.body,
    };
  },
  dialect: bodyModelDialect,
  streamFraming: (contentType) => (isEventStreamType(contentType) ? sseFraming : undefined),
  jsonFacts,
  jsonFailure: jsonAnswerFailure,
  maxOutputTokens: (body) => num(body.max_tokens) ?? num(body.max_completion_tokens) ?? num(body.max_output_tokens),
};

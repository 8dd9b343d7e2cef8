/**
 * The public types of the fake provider (`fake-provider.ts` documents each fault).
 */
import type { Api, Dialect } from './fake-provider-bodies.ts';
import type { BadEmbeddings } from './fake-provider-embeddings.ts';
import type { BedrockOp, FakeAwsCredentials } from './fake-provider-bedrock.ts';

/** Timing and size modifiers any fault may carry; unset ones fall back to the server options. */
export interface FaultTiming {
  /** Delay before the status line and headers, ms. */
  latencyMs?: number;
  /** Tokens in the answer. */
  tokens?: number;
  /** Gap between stream frames, ms. */
  tokenIntervalMs?: number;
  /** Starts the answer's words this many places later: a different (contradictory) answer. */
  textShift?: number;
  /**
   * `'tool_call'`: the answer is one call of the request's first tool, its arguments sent
   * in `tokens` pieces (chat `finish_reason: "tool_calls"`, Anthropic `tool_use`, a
   * Responses `function_call`). Default: a tool call when the request forces one
   * (`tool_choice` `required` / a named tool / Anthropic `any` or `tool`), else text.
   * `'refusal'` (chat only; other APIs answer text): the words come as the message's
   * `refusal` with `content: null` (streamed: `delta.refusal` pieces), finish `stop`.
   */
  output?: 'text' | 'tool_call' | 'refusal';
  /** Hidden reasoning tokens of a reasoning model or of Anthropic thinking (default: the server's). */
  reasoningTokens?: number;
  /** Anthropic with thinking on: a `redacted_thinking` block instead of a `thinking` block. */
  redactedThinking?: boolean;
  /**
   * Stream: a pause, ms, after the lead frames (a reasoning item, a thinking block) before
   * the first unit of the answer — a model that thinks for a while before it answers.
   */
  thinkingMs?: number;
  /** Embeddings: the size of the vectors answered (default: the request's `dimensions`, else the model's). */
  embeddingDimensions?: number;
  /**
   * Non-streamed chat, Messages, Responses and GenerateContent: the answer's text verbatim
   * instead of generated words (a canary's right or wrong answer, broken JSON, …).
   */
  text?: string;
  /** Non-streamed: a tool call's arguments verbatim (JSON text, or broken JSON; Anthropic and Gemini send an object, so broken JSON there is `{}`). */
  toolArgs?: string;
  /** The called tool's name (default: the request's first tool). */
  toolName?: string;
  /** The model the answer names (default: the requested one): a model swapped behind its name. */
  servedModel?: string;
  /** Chat `system_fingerprint` (default `fp_fake0001`). */
  fingerprint?: string;
}

/** One scripted behaviour for one request. See the module comment for each kind. */
export type Fault = FaultTiming &
  (
    | { kind: 'ok' }
    | { kind: 'rate_limit'; retryAfter?: number | string }
    | { kind: 'quota' }
    | { kind: 'status'; status: number; errorType?: string; code?: string | null; message?: string; headers?: Record<string, string> }
    | { kind: 'context_length' }
    | { kind: 'model_not_found' }
    | { kind: 'reset' }
    | { kind: 'no_response' }
    | { kind: 'slow_first_token'; ms: number }
    | { kind: 'cut_stream'; afterTokens: number; how?: 'reset' | 'end' }
    | { kind: 'stall'; afterTokens: number }
    | { kind: 'malformed_chunk'; afterTokens: number }
    | { kind: 'no_end_event'; keepOpen?: boolean }
    | { kind: 'finish_length' }
    | { kind: 'content_filter'; as?: 'finish' | 'error' }
    | { kind: 'no_prefill' }
    /** After `afterTokens` units, the API's own mid-stream failure: chat `{"error":…}` chunk, Anthropic `error` event, Responses `response.failed` (`as: 'failed'`, default) or `error` event. */
    | { kind: 'stream_error'; afterTokens: number; as?: 'failed' | 'error'; code?: string }
    /** Embeddings: a 200 answer with no vectors, the wrong count, a short, an empty or an all-zero vector. */
    | { kind: 'bad_embeddings'; how: BadEmbeddings }
  );

/** Options of `startFakeProvider`; every field has a default. */
export interface FakeProviderOptions {
  /** Keys accepted (default `['test-key']`). */
  apiKeys?: string[];
  /** Delay before headers for every answer, ms (default 0). */
  latencyMs?: number;
  /** Tokens per answer (default 8). */
  tokens?: number;
  /** Gap between stream frames, ms (default 0). */
  tokenIntervalMs?: number;
  /** When set, any other model gets 404 model_not_found. */
  models?: string[];
  /**
   * Models retired at a time (ms since the epoch, on `now`): from then on every request for
   * one gets 404 `model_not_found` in the provider's own error shape, as a retired model
   * answers (OpenAI `{"error":{"message","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
   * Anthropic `not_found_error`); before it, it answers as any model.
   */
  retirements?: Record<string, number>;
  /**
   * Models whose every answer (success or error) carries a provider's deprecation headers, as
   * sent: `deprecation` for RFC 9745 `Deprecation` (`@1767225600`), `sunset` for RFC 8594
   * `Sunset` (an HTTP-date, `Sun, 11 Jan 2027 00:00:00 GMT`). Values are not checked, so a
   * test can send junk.
   */
  deprecations?: Record<string, { deprecation?: string; sunset?: string }>;
  /** The fake's clock for `retirements` (default `Date.now`): tests move it instead of waiting. */
  now?: () => number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /**
   * Models that reason before answering (default: ids starting `o1`…`o9` or `gpt-5`, as
   * OpenAI's reasoning families). On chat they refuse `max_tokens` (400
   * `unsupported_parameter`, as the real API) and take `max_completion_tokens`; their
   * hidden tokens come first and count against the cap, so a tiny budget ends with
   * `length` and no text.
   */
  reasoningModels?: (model: string) => boolean;
  /**
   * Responses: `max_output_tokens` below this gets 400 `integer_below_min_value`, as the real
   * API answers below its floor of 16. Default 0 (off): existing tests cap answers at 3.
   */
  responsesMinOutputTokens?: number;
  /** Hidden reasoning tokens per answer of a reasoning model, at `medium` effort (default 16; `low` halves, `high` doubles, `minimal` none). */
  reasoningTokens?: number;
  /** Bedrock: AWS credentials whose SigV4 signatures are accepted (default `[FAKE_AWS_CREDENTIALS]`). */
  awsCredentials?: FakeAwsCredentials[];
}

/** One request as the fake saw it. Keys in `headers` are lower-case; credentials are redacted. */
export interface Attempt {
  seq: number;
  ts: number;
  dialect: Dialect | 'unknown';
  /** Which API the path called (a Bedrock operation; `unknown` for any other path, answered 404). */
  api: Api | BedrockOp | 'unknown';
  /** Bedrock: the SigV4 credential scope of a signature the fake verified (absent for an API key or a refused one). */
  sigv4?: { accessKeyId: string; region: string; service: string };
  method: string;
  path: string;
  /** The query string, without `?` (Azure's `api-version`, Gemini's `alt`). */
  query: string;
  model: string | undefined;
  stream: boolean;
  fault: Fault['kind'];
  /** Status sent; undefined for `reset` and `no_response` (and while a delayed answer is pending). */
  status: number | undefined;
  requestId: string;
  headers: Record<string, string>;
  body: unknown;
  /** Tokens actually written before the answer ended or was cut. */
  tokensSent: number;
  /** True when the client closed the connection before the fake finished its answer. */
  clientAborted: boolean;
}

/** Options of `script`. */
export interface ScriptOptions {
  /** Cycle through the faults forever instead of falling back to `ok` once they are used up. */
  persistent?: boolean;
}

/** A running fake provider. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Base URL for the `openai` client (`<url>/v1`). */
  openaiBaseUrl: string;
  /** An Azure OpenAI resource's endpoint: deployments under `/openai/deployments/{deployment}/…`, key in `api-key`. */
  azureEndpoint: string;
  /**
   * The Gemini API's and Vertex AI's base URL (`<url>`): `@google/genai`'s `httpOptions.baseUrl`
   * (it adds the version); `@ai-sdk/google`'s `baseURL` is `<url>/v1beta`. Key in `x-goog-api-key` or `?key=`.
   */
  geminiBaseUrl: string;
  /** Base URL for the `@anthropic-ai/sdk` client (`<url>`). */
  anthropicBaseUrl: string;
  /** Base URL of the Bedrock runtime (`<url>`: `/model/{modelId}/converse`, …), SigV4 verified. */
  bedrockBaseUrl: string;
  /** The first accepted AWS credentials (Bedrock). */
  awsCredentials: FakeAwsCredentials;
  /** The first accepted key. */
  apiKey: string;
  /** Every request received, in arrival order (live array). */
  attempts: Attempt[];
  /** Attempts for one model. */
  attemptsFor(model: string): Attempt[];
  /**
   * Scripts the next requests for `model` (`'*'` for any model without a script of its own).
   * A list is consumed one fault per request, then requests are served `ok`; with
   * `persistent` the list repeats until the model is rescripted or cleared.
   */
  script(model: string, faults: Fault | Fault[], opts?: ScriptOptions): void;
  /** Removes the script of one model, or of all models. */
  clear(model?: string): void;
  /** Clears every script and the attempt log. */
  reset(): void;
  /** Resolves once `n` attempts have been logged (rejects after `timeoutMs`, default 5000). */
  waitForAttempts(n: number, timeoutMs?: number): Promise<void>;
  /** Destroys open connections and stops listening. */
  close(): Promise<void>;
}

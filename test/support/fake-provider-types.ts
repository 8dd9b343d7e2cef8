/**
 * The public types of the fake provider (`fake-provider.ts` documents each fault).
 */
import type { Dialect } from './fake-provider-bodies.ts';

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
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
}

/** One request as the fake saw it. Keys in `headers` are lower-case; credentials are redacted. */
export interface Attempt {
  seq: number;
  ts: number;
  dialect: Dialect | 'unknown';
  method: string;
  path: string;
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
  /** Base URL for the `@anthropic-ai/sdk` client (`<url>`). */
  anthropicBaseUrl: string;
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

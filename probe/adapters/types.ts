/**
 * The one interface every provider kind implements. A kind knows how to read its own
 * `request` block, build the HTTP request, and check the answer's shape; timing,
 * timeouts, transport errors and HTTP error statuses are handled once, in the runner.
 * A new kind is one new file implementing this, plus one line in the registry.
 */
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import type { SseEvent } from '@breakerbox/protocol';
import type { AwsCredentials } from '../aws-credentials.ts';
import type { Canary } from '../canary-config.ts';

/** One tool call of an answer; `arguments` is the parsed JSON, or the raw text when it does not parse. */
export interface AnswerToolCall {
  name: string;
  arguments: unknown;
}

/**
 * What a well-formed answer said, for its canary and the served model version (issue 39):
 * the text of its answer parts (no thinking), its tool calls, and the model and build the
 * API names in the answer.
 */
export interface Answer {
  text: string;
  toolCalls: AnswerToolCall[];
  /** OpenAI/Anthropic `model`, Gemini `modelVersion`. */
  servedModel?: string;
  /** OpenAI `system_fingerprint`. */
  fingerprint?: string;
}

/** Token usage as the provider reported it. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** The verdict on a complete answer's shape. */
export type ShapeVerdict =
  | { ok: true; usage?: Usage }
  | { ok: false; errorClass: ErrorClass; reason: string; usage?: Usage };

/** What one SSE event meant to the checker. */
export interface StreamStep {
  /** This event carried the first generated content (first token). */
  firstToken?: boolean;
  /** The stream reported a failure (e.g. Anthropic `event: error`): stop reading. */
  failure?: { errorClass: ErrorClass; reason: string };
}

/** The served model version an answer names (issue 39). */
export interface Served {
  model?: string;
  fingerprint?: string;
}

/** Follows one stream event by event; `end` gives the verdict once the body ended. */
export interface StreamChecker {
  onEvent(event: SseEvent): StreamStep;
  end(): ShapeVerdict;
  /** The served model version the stream's events named, once read (kinds that know where it is). */
  served?(): Served | undefined;
}

/** The HTTP request a kind wants sent. Header values may hold the API key: never log them. */
export interface OutgoingRequest {
  url: URL;
  method: 'GET' | 'POST' | 'PUT';
  headers: Record<string, string>;
  body?: string;
}

/** Context handed to `parseRequest`. */
export interface ParseContext {
  key: BreakerKey;
}

/** One provider kind. `R` is the kind's resolved `request` block. */
export interface ProbeAdapter<R> {
  readonly kind: string;
  /** False when probing without a key is meaningful (a public endpoint). */
  readonly requiresApiKey: boolean;
  /** Reads and checks the `request` block; problems are reported on the reader. */
  parseRequest(request: FieldReader, ctx: ParseContext): R | undefined;
  /** True when the answer is a stream (first byte then means first token). */
  streamed(request: R): boolean;
  /** Tokens one probe is expected to use, for the plan's cost estimate. */
  estimateTokens(request: R): Usage;
  /**
   * Builds the request; `apiKey` is undefined only when `requiresApiKey` is false. With a
   * `canary` (only on kinds with `readAnswer`), the request is made near-deterministic
   * (temperature 0, the seed where the API takes one) and asks for the canary's structured
   * answer or forced tool call.
   */
  buildRequest(baseUrl: URL, request: R, apiKey: string | undefined, canary?: Canary): OutgoingRequest;
  /**
   * Reads a non-streamed body that `checkBody` accepted: its answer and served model.
   * Kinds with it take a `canary` (config validation refuses one elsewhere).
   */
  readAnswer?(request: R, text: string): Answer | undefined;
  /** True when a status counts as an answer to check (others go to the error classifier). */
  acceptsStatus(request: R, status: number): boolean;
  /** A problem of `base_url` this kind can see before sending anything (reported on the field). */
  baseUrlProblem?(baseUrl: URL, request: R): string | undefined;
  /** Checks a complete non-streamed body. */
  checkBody(request: R, text: string, contentType: string | undefined): ShapeVerdict;
  /** Starts checking a streamed body. */
  createStreamChecker(request: R): StreamChecker;
  /**
   * Kinds signed with AWS credentials (SigV4, Bedrock) when no `api_key_env` is given:
   * signs the built request; the CLI finds the credentials (`aws-credentials.ts`).
   */
  sign?(out: OutgoingRequest, request: R, credentials: AwsCredentials): Promise<OutgoingRequest>;
  /** The content type of this kind's streams, when not `text/event-stream` (Bedrock's `application/vnd.amazon.eventstream`). */
  readonly streamContentType?: string;
  /** Cuts a stream of that type into events (default: the SSE reader). */
  eventReader?(): { push(chunk: Uint8Array): SseEvent[] };
}

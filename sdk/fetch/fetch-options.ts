/**
 * The options of `bb.fetch` (checked at construction by `options/validate-options.ts`)
 * and of each fallback route.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import type { FailoverLevel } from '../policies/fallback.ts';
import type { TimeoutOptions } from '../settings.ts';
import type { FetchLike } from './http-attempt.ts';
import type { DeclaredValidation } from '../validation/structured-output.ts';
import type { ShadowTarget } from '../shadow/shadow-options.ts';
import type { RequestSigner } from './request-signer.ts';

/** A fallback route for a model. Unset fields are the primary's. */
export interface FetchRoute {
  model?: string;
  /** Base URL up to where the endpoint path starts (e.g. `https://api.together.xyz/v1`). */
  baseURL?: string;
  apiKey?: string;
  provider?: string;
  region?: string;
  /** Failover level (default: 1 for the same model elsewhere, 2 for another model). */
  level?: FailoverLevel;
  /** Share (0–1) of normal traffic sent through this route first, to keep it proven (default: the wrapper's `exerciseShare`). */
  exerciseShare?: number;
}

/** Options of the fetch wrapper. */
export interface BreakerboxFetchOptions {
  /** The fetch to send with (default: undici's, with a connect timeout when one is set). */
  fetch?: FetchLike;
  /** The primary's base URL; when given, fallbacks are reviewed at construction. */
  baseURL?: string;
  /** Provider name of the primary (default: from the host). */
  provider?: string;
  /** Region of the primary, when traffic is routed across regions. */
  region?: string;
  /** Fallback routes, by the primary's model id. */
  fallbacks?: Record<string, FetchRoute[]>;
  /**
   * Signs again a SigV4-signed request (Amazon Bedrock) that a fallback or shadow sends to
   * another model or base URL: `new SignatureV4({ credentials, region, service: 'bedrock',
   * sha256: Sha256 })` from `@smithy/signature-v4`. Without it such routes are refused
   * (`BB_ERR_SDK_SIGNER_REQUIRED`); the unchanged primary is always sent as the caller signed it.
   */
  signer?: RequestSigner;
  /** Client-fault classes that also move on to the next route (default `['context_length', 'invalid_output']`; `[]` for none). */
  fallbackOn?: ErrorClass[];
  /** Never substitute another route (durable writes); such requests are never mirrored either. */
  failClosed?: boolean;
  /**
   * False when the requests have side effects and must not be sent twice: never retried
   * without an `Idempotency-Key` header, never mirrored to a shadow (default true).
   */
  idempotent?: boolean;
  /**
   * Shadow traffic, by the primary's model id: a share of the requests is also sent to a
   * candidate model, asynchronously, and both answers' properties are compared (docs/lifecycle.md,
   * "Shadow traffic"). The caller's answer is never delayed, changed or failed by it.
   */
  shadow?: Record<string, ShadowTarget>;
  /** Operation name for tasks telemetry (default: `<endpoint>:<model>`). */
  operation?: string | ((model: string, endpoint: string) => string);
  /** Layered timeouts; unset layers fall back to the key's settings. */
  timeouts?: TimeoutOptions;
  /** What to do with a malformed stream chunk: drop and count it (default, `skipped_chunks` in telemetry) or fail the stream. */
  malformedChunks?: 'error' | 'skip';
  /** After finish and usage, how long to wait for `[DONE]` / `message_stop`, ms (default 200). */
  endGraceMs?: number;
  /**
   * A stream that breaks after its first token: `'rescue'` (default) splices in a
   * continuation or a checked regeneration (see the SDK README, *Mid-stream rescue*);
   * `'buffer'` holds every stream until it is complete, so any break is retried or failed
   * over before the caller reads anything (for non-interactive calls); `'error'` ends it
   * with `BB_ERR_SDK_STREAM_BROKEN`.
   *
   * Rescue order: each rescue runs the fallback chain from the primary (under its breaker)
   * until one route has broken the same answer twice; later rescues start at the next
   * level after it (1 same model elsewhere, 2 equivalent model, 3 cheaper model), which
   * gets the `maxRescues` and deadline left. So a primary that always cuts or stalls at the
   * same point gets one rescue, then the fallback finishes the answer.
   *
   * Never rescued: a stream that delivered tool-call arguments (a regenerated call has a new
   * id and could run twice) or broke inside a thinking block / reasoning item. Finished
   * reasoning the caller holds is kept; the rescuing answer's own is dropped.
   */
  midStream?: 'rescue' | 'buffer' | 'error';
  /** Rescue by assistant prefill where the dialect has it (Anthropic); false: regenerate only (default true). */
  prefill?: boolean;
  /** Rescues per answer, divergent regenerations included (default 2). */
  maxRescues?: number;
  /** Share (0–1) of normal traffic sent through each fallback route first (default 0: off). */
  exerciseShare?: number;
  /**
   * Validate every non-streamed chat, Responses and messages answer's structured output (a
   * tool call's arguments, else the text parsed as JSON; see the SDK README, *Validating
   * answers*): a JSON Schema, a validator function, a Standard Schema (zod, valibot,
   * arktype), or `'request'` for the JSON Schema the request itself declared
   * (`response_format`, `text.format`, `output_config.format`, the called tool's). An answer
   * that fails is an `invalid_output` failure: failed over to the next route, never handed
   * to the client as a success (with `failClosed`, the client gets a 502
   * `BB_ERR_SDK_INVALID_OUTPUT`). Streamed answers are not validated. Shadow mirrors
   * (`shadow`) validate the candidate's answers with the same check, off the caller's path.
   */
  validate?: DeclaredValidation;
}

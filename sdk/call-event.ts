/**
 * The per-call event (`onCall`): what an application should log for every model call,
 * emitted once per logical call (after a stream ends), whatever its outcome.
 */
import type { ErrorClass } from '@breakerbox/protocol';

/** One logical model call, after its last attempt. */
export interface CallEvent {
  /** Our id for the call (one per logical call, shared by its attempts). */
  requestId: string;
  /** The provider's request id of the last attempt (`x-request-id` / `request-id`). */
  upstreamRequestId?: string;
  provider: string;
  endpoint: string;
  model: string;
  region?: string;
  /** The operation (fallback chain) the call belonged to, if any. */
  operation?: string;
  /** Attempts sent, on every level, the first one included. */
  attempts: number;
  /** Failover level that served (or last tried) the call: 0 primary … 4 degraded. */
  level: number;
  ok: boolean;
  /** Why it failed (or `truncated` / `policy` for an answer that is not a success). */
  errorClass?: ErrorClass;
  /** Stable SDK error code when the SDK refused or broke the call. */
  errorCode?: string;
  /** Time to first token of the serving attempt, ms (streams). */
  ttftMs?: number;
  /** From the call's start to its end, retries and waits included, ms. */
  durationMs: number;
  inputTokens?: number;
  /** Output tokens as billed, reasoning tokens included. */
  outputTokens?: number;
  /** The part of `outputTokens` a reasoning model spent thinking (provider-reported). */
  reasoningTokens?: number;
  finishReason?: string;
  /** True when the provider reported cached input tokens. */
  cacheHit?: boolean;
  /** Estimated cost of every attempt of the call, USD (price table × usage). */
  costUsd: number;
  /** Mid-stream rescues that completed (or tried to complete) the answer; absent when none. */
  rescues?: number;
  /** The failure drill this call was traffic of (docs/drills.md); absent for real traffic. */
  drillId?: string;
}

let counter = 0;
const prefix = Math.floor(Math.random() * 0xffffffff).toString(36);

/** A process-unique call id; cheap (no crypto), only built when someone listens. */
export function newCallId(): string {
  return `bb_${prefix}_${(++counter).toString(36)}`;
}

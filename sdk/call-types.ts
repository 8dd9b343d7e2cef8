/**
 * The types of a protected call: what a key policy shares with its SDK instance, the
 * options of one call, and what attempts report.
 */
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { Clock } from './clock.ts';
import type { Emitter } from './events.ts';
import type { CallEvent } from './call-event.ts';
import type { RetryBudget } from './policies/retry-budget.ts';
import type { CostBudget } from './policies/cost-budget.ts';
import type { PriceTable } from './pricing.ts';
import type { AttemptFacts, KeyStats } from './telemetry/key-stats.ts';
import type { SampleLimits } from './telemetry/key-samples.ts';
import type { DrillTraffic } from './drills/drill-traffic.ts';

/** What every key of one SDK instance shares. */
export interface SdkContext {
  clock: Clock;
  random: () => number;
  retryBudget: RetryBudget;
  costBudget: CostBudget;
  prices: PriceTable;
  calls: Emitter<CallEvent>;
  latencyBounds: readonly number[];
  /** Evidence samples kept per key per window (count 0: none; no collector, no samples). */
  sampleLimits: SampleLimits;
  /** A key's window reached its failure onset (`KeyStats.attempt`): report it now. Absent without a collector. */
  onFailureOnset?: (stats: KeyStats) => void;
}

/** Facts about a successful answer, for telemetry and `onCall`. */
export interface CallFacts extends AttemptFacts {
  finishReason?: string;
  upstreamRequestId?: string;
  cacheHit?: boolean;
  /** The model the provider says served the answer (the answer's `model`). */
  modelServed?: string;
  /** Time to the answer's headers, ms. */
  ttfbMs?: number;
  /** Hidden reasoning tokens (reasoning models, thinking); already counted in `outputTokens` and its cost. */
  reasoningTokens?: number;
}

/** Settles an attempt whose outcome is known only later (a stream still being read). */
export interface AttemptControl {
  /** Records the attempt's outcome once; later calls are ignored. `cls` null means success. */
  settle(cls: ErrorClass | null, facts?: CallFacts): void;
  /** Forgets the attempt without an outcome (the caller gave up). */
  cancel(): void;
}

/** One attempt of a protected call: `signal` aborts on the deadline; `attempt` counts from 1. */
export type AttemptFn<T> = (signal: AbortSignal | undefined, attempt: number, control: AttemptControl | undefined) => Promise<T>;

/** Options of one protected call. */
export interface CallOptions<T = unknown> {
  /** The caller's signal: aborting it ends the call without counting against the provider. */
  signal?: AbortSignal;
  /** Total deadline for the call, retries included, ms (default: the key's `timeouts.totalMs`). */
  deadlineMs?: number;
  /** False for a request that must not be sent twice; it is then never retried without `idempotencyKey`. */
  idempotent?: boolean;
  idempotencyKey?: string;
  /** Reads usage / finish reason from the value for telemetry; a `length` finish records the call as `truncated`. */
  facts?: (value: T) => CallFacts | undefined;
  /** Refuse before sending when this estimate crosses the cost budget, USD. */
  estimatedCostUsd?: number;
  /** The attempt settles itself through the `AttemptControl` it is given (used for streams). */
  deferSettle?: boolean;
  /** Emit no `onCall` event (the caller emits one for the whole chain). */
  silent?: boolean;
  /** Operation name carried into `onCall`. */
  operation?: string;
  /** This call exercises a fallback with normal traffic: its attempts are counted as `exercised` in the window. */
  exercise?: boolean;
  /** Failover level of the chain this call runs at (for evidence samples); absent outside a chain. */
  level?: number;
  /** The call is drill traffic (docs/drills.md): its attempts are counted in the drill's window, not the key's. */
  drill?: DrillTraffic;
  /** Called after every attempt with its outcome (used by fallback chains to list attempts). */
  onAttempt?: (record: AttemptRecord) => void;
}

/** One attempt, as `onAttempt` and operation results report it. */
export interface AttemptRecord {
  key: BreakerKey | undefined;
  level: number;
  /** 1-based attempt number on this key. */
  attempt: number;
  ok: boolean;
  errorClass?: ErrorClass;
  errorCode?: string;
  durationMs: number;
  costUsd: number;
}


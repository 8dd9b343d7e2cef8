/**
 * breakerbox SDK — the one entry point. Applications import everything from here.
 *
 * ```ts
 * const bb = createBreakerbox({ telemetry: { url, token, service: 'ticket-drafts' } });
 * const openai = new OpenAI({ fetch: bb.fetch({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } }), maxRetries: 0 });
 * ```
 */
export type {
  BreakerKey, BreakerStateName, ConfigEvent, ErrorClass, Histogram, ProbeEvent, TasksEvent, TelemetryAck, TelemetryBatch,
  TelemetryEvent, TransitionEvent, TransitionReason, WindowEvent, ProviderErrorInfo, ShadowEvent, ShadowSide,
} from '@breakerbox/protocol';
export {
  DEFAULT_LATENCY_BOUNDS_MS,
  ERROR_CLASSES,
  classifyHttpError,
  classifyErrorBody,
  classifyThrown,
  classifyFinishReason,
  countsAgainstProvider,
  isErrorClass,
  isRetryable,
  parseRetryAfter,
  providerErrorInfo,
  retryAfterFromHeaders,
  retryAfterOfError,
  retryNeedsCare,
  keyId,
  keyLabel,
} from '@breakerbox/protocol';
export { BreakerboxError, SDK_ERROR_CODES, isBreakerboxError } from './errors/catalog.ts';
export type { BreakerboxErrorDetails, SdkErrorCode } from './errors/catalog.ts';

export { Breakerbox, createBreakerbox } from './breakerbox.ts';
export type { BreakerboxOptions } from './breakerbox-options.ts';
export { KeyPolicy } from './key-policy.ts';
export type { AttemptControl, AttemptFn, AttemptRecord, CallFacts, CallOptions } from './key-policy.ts';
export type { CallEvent } from './call-event.ts';
export { systemClock, sleep } from './clock.ts';
export type { Clock, TimerHandle } from './clock.ts';
export type { EventSubscriber, Unsubscribe } from './events.ts';
export { resolveSettings, DEFAULT_COLD_AFTER_IDLE_MS, DEFAULT_HEDGE_OPTIONS } from './settings.ts';
export type { HedgeOptions, KeySettings, ResolvedKeySettings, TimeoutOptions } from './settings.ts';

export { Breaker } from './policies/breaker.ts';
export { DEFAULT_BREAKER_OPTIONS, type BreakerOptions } from './policies/breaker-options.ts';
export type { BreakerState, BreakerTransition, FleetEffect } from './policies/breaker.ts';
export type { FleetOptions, FleetStats } from './fleet/fleet-subscription.ts';
export type { FleetDecisionOutcome, FleetIgnoreReason } from './fleet/apply-decision.ts';
export type { DrillOptions, DrillOutcome, DrillIgnoreReason, DrillState } from './drills/drill-controller.ts';
export type { DrillCommand, DrillKind } from '@breakerbox/protocol';
export { DRILL_KINDS } from '@breakerbox/protocol';
export type { OutputValidator, OutputCheckFn } from './validation/output-validator.ts';
export type { JsonSchema } from './validation/json-schema.ts';
export type { StandardSchemaV1 } from './validation/standard-schema.ts';
export { Bulkhead, DEFAULT_BULKHEAD_OPTIONS } from './policies/bulkhead.ts';
export type { BulkheadOptions } from './policies/bulkhead.ts';
export { DEFAULT_RETRY_OPTIONS, backoffDelay, decideRetry } from './policies/retry.ts';
export type { RetryDecision, RetryOptions } from './policies/retry.ts';
export { RetryBudget, DEFAULT_RETRY_BUDGET_OPTIONS } from './policies/retry-budget.ts';
export type { RetryBudgetOptions } from './policies/retry-budget.ts';
export { CostBudget } from './policies/cost-budget.ts';
export type { CostBudgetOptions } from './policies/cost-budget.ts';
export { runHedged } from './policies/hedge.ts';
export { runChain, levelOf, DEFAULT_FALLBACK_ON } from './policies/fallback.ts';
export type { ChainLevel, FailoverLevel, Operation, OperationResult, OperationSpec, RunOptions } from './policies/fallback.ts';
export { PriceTable, DEFAULT_PRICES, estimateTokens } from './pricing.ts';
export type { ModelPrice } from './pricing.ts';
export { reviewFallbacks } from './config-review.ts';
export type { ReviewedRoute } from './config-review.ts';

export { createBreakerboxFetch } from './fetch/create-fetch.ts';
export type { BreakerboxFetchOptions, FetchRoute } from './fetch/create-fetch.ts';
export { ShadowRunner } from './shadow/shadow-runner.ts';
export type { Mirror, MirrorRequest, ShadowRunnerHost } from './shadow/shadow-runner.ts';
export { DEFAULT_SHADOW_LIMITS } from './shadow/shadow-options.ts';
export type { ShadowLimits, ShadowTarget } from './shadow/shadow-options.ts';
export type { AnswerProperties } from './shadow/answer-properties.ts';
export { ProviderHttpError } from './fetch/http-attempt.ts';
export type { FetchLike } from './fetch/http-attempt.ts';
export { guardStream } from './streams/stream-guard.ts';
export type { GuardedStream, StreamGuardOptions, StreamSummary } from './streams/stream-guard.ts';

export type { TaskOutcome } from './telemetry/task-stats.ts';
export { TelemetryReporter, SDK_NAME, newBatchId } from './telemetry/reporter.ts';
export type { ReporterError, ReporterOptions, ReporterStats, TelemetrySource } from './telemetry/reporter.ts';

export { ExternalKey } from './adapters/external-key.ts';
export { attachOpossum, observeFallback } from './adapters/opossum.ts';
export type { OpossumAdapterOptions, OpossumLike } from './adapters/opossum.ts';
export { attachCockatiel } from './adapters/cockatiel.ts';
export type { CockatielAttachment, CockatielBreakerLike, CockatielBulkheadLike } from './adapters/cockatiel.ts';

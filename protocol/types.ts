/**
 * Telemetry protocol v1 — the wire types shared by the SDK, the prober and the
 * collector (see `docs/protocol.md`). Written out by hand so editors show them plainly;
 * `schemas.ts` holds the TypeBox schemas the collector validates with, and a compile-time
 * check there fails the build when the two differ.
 */

/** One thing that fails as a unit. Model ids may contain `/`, `:` and `@`. */
export interface BreakerKey {
  provider: string;
  endpoint: string;
  model: string;
  region?: string;
}

/** The error taxonomy (docs/architecture.md): one class per kind of failure. */
export type ErrorClass =
  | 'rate_limit'
  | 'quota'
  | 'server'
  | 'network'
  | 'timeout'
  | 'bad_request'
  | 'auth'
  | 'context_length'
  | 'policy'
  | 'truncated'
  | 'stream_broken'
  /**
   * An answer the provider delivered in full that failed the operation's declared validation
   * (a JSON Schema, a validator function or a Standard Schema; docs/drills.md): a failure of
   * its own, failed over like a client fault, never held against the provider.
   */
  | 'invalid_output'
  /** A failure an OTLP sender reported with an error type no rule places (docs/otlp.md): neither ours nor the provider's. */
  | 'unclassified';

export type BreakerStateName = 'closed' | 'open' | 'half_open' | 'forced_open';

/**
 * Why a breaker changed state — the one list (the schema, the SDK, the collector and the
 * dashboard read it). The `fleet_*` reasons are decisions of the collector's fleet feed
 * (docs/fleet.md): `fleet_outage` / `fleet_drain` force the breaker open for a time-to-live,
 * `fleet_recovered` / `fleet_release` send an open breaker to half-open at once.
 */
export const TRANSITION_REASONS = [
  'created',
  'error_rate',
  'slow_calls',
  'rejections',
  'probe_failed',
  'probes_succeeded',
  'cooldown_elapsed',
  'manual',
  'fleet_outage',
  'fleet_recovered',
  'fleet_drain',
  'fleet_release',
] as const;
export type TransitionReason = (typeof TRANSITION_REASONS)[number];

/** A latency histogram: `counts.length === bounds.length + 1` (the last bucket is +Inf). */
export interface Histogram {
  bounds: number[];
  counts: number[];
}

export interface TransitionEvent {
  type: 'transition';
  ts: number;
  key: BreakerKey;
  from: BreakerStateName | null;
  to: BreakerStateName;
  reason: TransitionReason;
  cooldown_ms?: number;
  attempt?: number;
  rates?: { error: number; slow: number };
}

export interface WindowEvent {
  type: 'window';
  start: number;
  end: number;
  key: BreakerKey;
  calls: number;
  ok: number;
  slow: number;
  errors: Partial<Record<ErrorClass, number>>;
  rejected: number;
  short_circuited: number;
  retries: number;
  cold_excluded: number;
  half_open: { ok: number; failed: number };
  latency_ms: Histogram;
  ttft_ms?: Histogram;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Optional: malformed stream chunks the SDK dropped (`malformedChunks: 'skip'`); absent when none. */
  skipped_chunks?: number;
  /**
   * Optional: of `calls`, the attempts sent to this key as a fallback exercised with normal
   * traffic (not a failover), and how many of them succeeded; absent when none.
   */
  exercised?: { calls: number; ok: number };
  /**
   * Optional: a few failed and slow attempts of this window, as evidence for the provider
   * (at most `MAX_WINDOW_SAMPLES`, `MAX_WINDOW_SAMPLES_BYTES` of JSON); absent when none.
   * Never prompt or completion text.
   */
  samples?: CallSample[];
  /**
   * Optional (issue 28): the provider's own deprecation signal on this key's answers in the
   * window — RFC 9745 `Deprecation` and RFC 8594 `Sunset` response headers, on successes and
   * failures alike; absent when no answer carried one that parses.
   */
  deprecation_signal?: WindowDeprecationSignal;
}

/** The deprecation headers a key's answers carried in one window (the latest dates seen). */
export interface WindowDeprecationSignal {
  /** Answers that carried a `Deprecation` or `Sunset` header that parses. */
  responses: number;
  /** The latest answer's `Deprecation` date, ms since the epoch. */
  deprecation_at?: number;
  /** The latest answer's `Sunset` date, ms since the epoch. */
  sunset_at?: number;
}

/** Where a stream attempt broke: before its first token, or after some were delivered. */
export type StreamBreak = 'before_first_token' | 'after_first_token';

/**
 * One failed or slow attempt, kept as evidence a provider's support can act on: when, what
 * the provider answered and its request id. Never prompt or completion text; `message` is
 * the provider's error message, cut and redacted by the sender.
 */
export interface CallSample {
  /** When the attempt ended, ms since the Unix epoch. */
  ts: number;
  /** `error`: it failed (`error_class` says how); `slow`: it succeeded over the latency ceiling. */
  outcome: 'error' | 'slow';
  error_class?: ErrorClass;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** The provider's error `type` (`overloaded_error`, `server_error`). */
  error_type?: string;
  /** The provider's error `code` (`rate_limit_exceeded`). */
  error_code?: string;
  /** The provider's error message: first characters only, secrets redacted. */
  message?: string;
  /** The SDK's own error code (`BB_ERR_SDK_TIMEOUT`), when it ended the attempt. */
  sdk_code?: string;
  /** The provider's request id (`x-request-id`, `request-id`, `anthropic-request-id`, `x-amzn-requestid`, …). */
  upstream_request_id?: string;
  /** The model the provider says served the answer, when it differs from the key's or was reported. */
  model_served?: string;
  /** 1-based attempt number on this key within its call. */
  attempt: number;
  /** Failover level of the call's chain (0 primary … 4 degraded); absent outside a chain. */
  level?: number;
  ttfb_ms?: number;
  ttft_ms?: number;
  /** The attempt's duration, ms. */
  duration_ms: number;
  input_tokens?: number;
  output_tokens?: number;
  finish_reason?: string;
  cost_usd?: number;
  /** True for a streamed answer. */
  stream?: boolean;
  /** For a stream that failed after its headers: where it broke. */
  broke_at?: StreamBreak;
}

export interface TasksEvent {
  type: 'tasks';
  start: number;
  end: number;
  operation: string;
  completed: number;
  failed: number;
  degraded: number;
  attempts: number;
  cost_usd: number;
  levels: Partial<Record<'0' | '1' | '2' | '3' | '4', number>>;
  fallback: { invoked: number; failed: number };
  /** The chain's primary key (optional; older senders omit it): fallback figures are attributed to it. */
  key?: BreakerKey;
}

export interface ConfigEvent {
  type: 'config';
  ts: number;
  key: BreakerKey;
  settings: Record<string, number | string | boolean>;
  fallbacks: BreakerKey[];
  warnings: string[];
}

export interface ProbeEvent {
  type: 'probe';
  ts: number;
  key: BreakerKey;
  location: string;
  /**
   * `wrong_answer` (issue 39): the answer arrived whole and well-formed but failed the
   * target's canary (the expected word, pattern, schema or tool call) — not a transport
   * failure, and not ok. Older collectors refuse it; older probers never send it.
   */
  outcome: ProbeOutcome;
  error_class?: ErrorClass;
  status?: number;
  latency_ms: { connect?: number; ttfb?: number; total: number };
  cold?: boolean;
  cost_usd?: number;
  /** Why the probe ran (optional; absent = on its schedule): `suspicion` = asked for by the collector. */
  trigger?: 'schedule' | 'suspicion';
  /** A failed probe's upstream request id (`x-request-id`, `request-id`, …), as the provider sent it. */
  upstream_request_id?: string;
  /** A failed probe's provider error type (`overloaded_error`, `server_error`). */
  error_type?: string;
  /** A failed probe's provider error code (`rate_limit_exceeded`). */
  error_code?: string;
  /**
   * A failed probe's provider error message: first characters only, secrets redacted. For a
   * `wrong_answer`, what the canary expected and how the answer missed it.
   */
  message?: string;
  /** A `wrong_answer`'s evidence: the answer's first characters (≤ MAX_ANSWER_EXCERPT_CHARS), secrets redacted. */
  answer_excerpt?: string;
  /** The served model as the answer names it (OpenAI/Anthropic `model`, Gemini `modelVersion`): the name a call sample uses. */
  model_served?: string;
  /** The served build where the API sends one (OpenAI `system_fingerprint`). */
  system_fingerprint?: string;
}

/** Every outcome a probe event may carry, in one list (schemas and stores read it). */
export const PROBE_OUTCOMES = ['ok', 'slow', 'error', 'wrong_answer'] as const;
export type ProbeOutcome = (typeof PROBE_OUTCOMES)[number];

/**
 * One side of a shadow comparison (issue 28): the properties of the answers one model gave
 * to the mirrored requests of a window — never their text.
 */
export interface ShadowSide {
  /** Answers that succeeded (a complete, unrefused answer). */
  ok: number;
  /** Failures per class (`truncated`: stopped on its token limit; `timeout`: the shadow's own timeout too). */
  errors: Partial<Record<ErrorClass, number>>;
  /** Answers that refused (a refusal field, a content-filter or refusal finish). */
  refusals: number;
  /** Of the answers whose primary answer was JSON (or asked for it), how many parsed as JSON; absent when none was checked. */
  json?: { checked: number; valid: number };
  /** Answers checked by the operation's validator and how many passed; absent when the operation declares none. */
  validation?: { checked: number; passed: number };
  /** From sending to the answer's end, ms. */
  latency_ms: Histogram;
  /** Time to first token of streamed answers, ms; absent when none streamed. */
  ttft_ms?: Histogram;
  output_tokens: number;
  cost_usd: number;
}

/**
 * Shadow traffic (issue 28): `pairs` real requests to `key` were also sent to `candidate`,
 * and both answers' properties are aggregated side by side. The candidate's cost is here
 * only, never in a window of either key.
 */
export interface ShadowEvent {
  type: 'shadow';
  start: number;
  end: number;
  /** The primary: the key the caller's requests went to. */
  key: BreakerKey;
  /** The model the requests were mirrored to. */
  candidate: BreakerKey;
  /** Mirrored requests whose both answers are known. */
  pairs: number;
  /** Requests picked for mirroring but not sent: the shadow's concurrency was full (load sheds mirrors first). */
  dropped: number;
  primary: ShadowSide;
  shadow: ShadowSide;
}

export type TelemetryEvent = TransitionEvent | WindowEvent | TasksEvent | ConfigEvent | ProbeEvent | ShadowEvent;

/**
 * The six failure drills (docs/drills.md) an SDK instance with drills enabled injects at its
 * fetch layer, before the network: `rate_limit` 429 with `retry-after`; `slow_first_byte` a
 * first byte later than the key's TTFT limit; `primary_down` connection refused for the
 * primary; `truncated` an answer ending with `finish_reason: length` / `stop_reason:
 * max_tokens`; `field_renamed` a structured-output answer with one field renamed;
 * `auth_revoked` 401/403 for the primary key.
 */
export const DRILL_KINDS = ['rate_limit', 'slow_first_byte', 'primary_down', 'truncated', 'field_renamed', 'auth_revoked'] as const;
export type DrillKind = (typeof DRILL_KINDS)[number];

/**
 * A drill the collector asks the instances of one service to run (the `data` of an SSE
 * `drill` event on the fleet feed). An instance applies it only when its own options enable
 * drills and `service` is its own.
 */
export interface DrillCommand {
  /** Stable per drill run; every batch of the run's traffic carries it as `drill_id`. */
  id: string;
  service: string;
  /** The drills to run, one after another in this order, each for `step_ms`. */
  kinds: DrillKind[];
  /** The keys whose calls are drilled (calls whose chain starts at one of them); absent = every chain's primary. */
  keys?: BreakerKey[];
  /** How long each drill of `kinds` runs, ms, measured from receipt (relative: clock skew cannot stretch it). 0 = stop now. */
  step_ms: number;
  /** When the collector issued it, ms since the epoch (display only). */
  issued_at: number;
}

/** The body of `POST /v1/telemetry`. */
export interface TelemetryBatch {
  batch_id: string;
  source: { service: string; instance: string; sdk?: string };
  events: TelemetryEvent[];
  /**
   * Present when every event of the batch is drill traffic of that run (docs/drills.md): the
   * collector keeps such batches out of real verdicts, incidents, `/metrics` and cost.
   */
  drill_id?: string;
  /** Events the sender dropped (buffer full while the collector was unreachable) since its last accepted batch. */
  dropped_events?: number;
  /** Fleet decisions (docs/fleet.md) this instance applied and ignored since its last accepted batch; absent when none. */
  fleet?: { applied: number; ignored: number };
  /**
   * Requests the SDK's fetch wrapper forwarded unprotected since its last accepted batch, per
   * host, path family and method (docs/protocol.md, "Passthrough"); absent when none. A batch
   * may carry these and no events.
   */
  passthrough?: PassthroughCount[];
}

/** Requests forwarded unprotected to one host, path family (`pathFamilyOf`) and method. */
export interface PassthroughCount {
  /** The host (with its port when not the default); `(other)` for what the sender's cap folded together. */
  host: string;
  path_family: string;
  method: string;
  count: number;
  /** Why the latest of them was not protected (`no model in the body`, `unknown endpoint`, …). */
  why?: string;
}

/** The collector's answer to an accepted batch. */
export interface TelemetryAck {
  accepted: number;
  duplicate: boolean;
}

/** Default latency histogram bounds in ms, shared so collector-side merges line up. */
export const DEFAULT_LATENCY_BOUNDS_MS: readonly number[] = [
  25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000,
];

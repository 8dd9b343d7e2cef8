import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type * as T from './types.ts';
import { DRILL_KINDS, PROBE_OUTCOMES, TRANSITION_REASONS } from './types.ts';

/** Every probe outcome (defined with `ProbeEvent` in types.ts), for the collector's schemas. */
export { PROBE_OUTCOMES };

/**
 * Protocol v1 as JSON Schema (TypeBox): what the collector validates. The wire types in
 * `types.ts` are checked against these schemas at compile time (bottom of this file), so
 * the two cannot drift. Objects accept unknown fields (forward compatibility); each event
 * type has its own schema so an error names the exact field.
 */

/** Largest count accepted: a safe integer, so a stored figure reads back exactly. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;
/** Largest `cost_usd` of one event; rollup sums of such figures stay finite and exact to the cent. */
export const MAX_COST_USD = 1_000_000;
/** Largest latency or histogram bound accepted, in ms (one day). */
export const MAX_LATENCY_MS = 86_400_000;

const Count = Type.Integer({ minimum: 0, maximum: MAX_COUNT });
const Millis = Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'ms since the Unix epoch (UTC)' });
const Money = Type.Number({ minimum: 0, maximum: MAX_COST_USD });
const Latency = Type.Number({ minimum: 0, maximum: MAX_LATENCY_MS });
const Name = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const BreakerKeySchema = Type.Object({
  provider: Name(100),
  endpoint: Name(100),
  model: Name(300),
  region: Type.Optional(Name(100)),
});

const ErrorClassName = Type.Union([
  Type.Literal('rate_limit'), Type.Literal('quota'), Type.Literal('server'), Type.Literal('network'), Type.Literal('timeout'),
  Type.Literal('bad_request'), Type.Literal('auth'), Type.Literal('context_length'), Type.Literal('policy'), Type.Literal('truncated'),
  Type.Literal('stream_broken'), Type.Literal('invalid_output'),
  Type.Literal('unclassified'),
]);
const State = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half_open'), Type.Literal('forced_open')]);
const Reason = Type.Union(TRANSITION_REASONS.map((r) => Type.Literal(r)));

/** `errors` of a window: a count per taxonomy class; a class outside the taxonomy is refused. */
const ErrorCounts = Type.Partial(Type.Record(ErrorClassName, Count), { additionalProperties: false });

/** Most samples one window carries (the SDK keeps fewer by default). */
export const MAX_WINDOW_SAMPLES = 10;
/** Most bytes of JSON the `samples` of one window may take (checked by the collector after the schema). */
export const MAX_WINDOW_SAMPLES_BYTES = 8_192;
/** Most characters of a sample's provider message (the SDK cuts longer ones). */
export const MAX_SAMPLE_MESSAGE_CHARS = 300;
/** Longest `answer_excerpt` of a `wrong_answer` probe (its first characters, redacted). */
export const MAX_ANSWER_EXCERPT_CHARS = 200;

const Short = (max: number) => Type.String({ minLength: 1, maxLength: max });

/** One failed or slow attempt (see `CallSample` in types.ts); every string capped. */
export const CallSampleSchema = Type.Object({
  ts: Millis,
  outcome: Type.Union([Type.Literal('error'), Type.Literal('slow')]),
  error_class: Type.Optional(ErrorClassName),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  error_type: Type.Optional(Short(100)),
  error_code: Type.Optional(Short(100)),
  message: Type.Optional(Type.String({ maxLength: MAX_SAMPLE_MESSAGE_CHARS })),
  sdk_code: Type.Optional(Short(100)),
  upstream_request_id: Type.Optional(Short(200)),
  model_served: Type.Optional(Short(300)),
  attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
  level: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
  ttfb_ms: Type.Optional(Latency),
  ttft_ms: Type.Optional(Latency),
  duration_ms: Latency,
  input_tokens: Type.Optional(Count),
  output_tokens: Type.Optional(Count),
  finish_reason: Type.Optional(Short(100)),
  cost_usd: Type.Optional(Money),
  stream: Type.Optional(Type.Boolean()),
  broke_at: Type.Optional(Type.Union([Type.Literal('before_first_token'), Type.Literal('after_first_token')])),
});

const HistogramSchema = Type.Object({
  bounds: Type.Array(Latency, { maxItems: 64 }),
  counts: Type.Array(Count, { minItems: 1, maxItems: 65 }),
});

export const TransitionSchema = Type.Object({
  type: Type.Literal('transition'),
  ts: Millis,
  key: BreakerKeySchema,
  from: Type.Union([State, Type.Null()]),
  to: State,
  reason: Reason,
  cooldown_ms: Type.Optional(Count),
  attempt: Type.Optional(Count),
  rates: Type.Optional(Type.Object({ error: Type.Number({ minimum: 0, maximum: 1 }), slow: Type.Number({ minimum: 0, maximum: 1 }) })),
});

export const WindowSchema = Type.Object({
  type: Type.Literal('window'),
  start: Millis,
  end: Millis,
  key: BreakerKeySchema,
  calls: Count,
  ok: Count,
  slow: Count,
  errors: ErrorCounts,
  rejected: Count,
  short_circuited: Count,
  retries: Count,
  cold_excluded: Count,
  half_open: Type.Object({ ok: Count, failed: Count }),
  latency_ms: HistogramSchema,
  ttft_ms: Type.Optional(HistogramSchema),
  input_tokens: Count,
  output_tokens: Count,
  cost_usd: Money,
  // Optional (SDK issue 16): malformed stream chunks dropped, and fallback-exercise attempts.
  skipped_chunks: Type.Optional(Count),
  exercised: Type.Optional(Type.Object({ calls: Count, ok: Count })),
  // Optional (issue 27): evidence for the provider; older collectors ignore it.
  samples: Type.Optional(Type.Array(CallSampleSchema, { maxItems: MAX_WINDOW_SAMPLES })),
  // Optional (issue 28): the provider's Deprecation / Sunset headers; older collectors ignore it.
  deprecation_signal: Type.Optional(Type.Object({
    responses: Type.Integer({ minimum: 1, maximum: MAX_COUNT }),
    deprecation_at: Type.Optional(Millis),
    sunset_at: Type.Optional(Millis),
  })),
});

const Level = Type.Optional(Count);
export const TasksSchema = Type.Object({
  type: Type.Literal('tasks'),
  start: Millis,
  end: Millis,
  operation: Name(200),
  completed: Count,
  failed: Count,
  degraded: Count,
  attempts: Count,
  cost_usd: Money,
  levels: Type.Object({ '0': Level, '1': Level, '2': Level, '3': Level, '4': Level }),
  fallback: Type.Object({ invoked: Count, failed: Count }),
  key: Type.Optional(BreakerKeySchema),
});

export const ConfigEventSchema = Type.Object({
  type: Type.Literal('config'),
  ts: Millis,
  key: BreakerKeySchema,
  settings: Type.Record(Type.String({ maxLength: 100 }), Type.Union([Type.Number({ minimum: -MAX_COUNT, maximum: MAX_COUNT }), Type.String({ maxLength: 1000 }), Type.Boolean()]), {
    maxProperties: 100,
  }),
  fallbacks: Type.Array(BreakerKeySchema, { maxItems: 20 }),
  warnings: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 }),
});

export const ProbeSchema = Type.Object({
  type: Type.Literal('probe'),
  ts: Millis,
  key: BreakerKeySchema,
  location: Name(100),
  outcome: Type.Union(PROBE_OUTCOMES.map((o) => Type.Literal(o))),
  error_class: Type.Optional(ErrorClassName),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  latency_ms: Type.Object({
    connect: Type.Optional(Latency),
    ttfb: Type.Optional(Latency),
    total: Latency,
  }),
  cold: Type.Optional(Type.Boolean()),
  cost_usd: Type.Optional(Money),
  trigger: Type.Optional(Type.Union([Type.Literal('schedule'), Type.Literal('suspicion')])),
  // A failed probe's evidence (issue 27), as in a call sample: the provider's own request id
  // and its error body's type/code/message (cut and redacted by the prober).
  upstream_request_id: Type.Optional(Short(200)),
  error_type: Type.Optional(Short(100)),
  error_code: Type.Optional(Short(100)),
  message: Type.Optional(Type.String({ maxLength: MAX_SAMPLE_MESSAGE_CHARS })),
  // Issue 39: a wrong answer's first characters (redacted by the prober) and the served model version.
  answer_excerpt: Type.Optional(Type.String({ maxLength: MAX_ANSWER_EXCERPT_CHARS })),
  model_served: Type.Optional(Short(300)),
  system_fingerprint: Type.Optional(Short(200)),
});

/** One side of a shadow comparison (see `ShadowSide` in types.ts). */
export const ShadowSideSchema = Type.Object({
  ok: Count,
  errors: ErrorCounts,
  refusals: Count,
  json: Type.Optional(Type.Object({ checked: Count, valid: Count })),
  validation: Type.Optional(Type.Object({ checked: Count, passed: Count })),
  latency_ms: HistogramSchema,
  ttft_ms: Type.Optional(HistogramSchema),
  output_tokens: Count,
  cost_usd: Money,
});

// Issue 28: aggregated shadow traffic per primary -> candidate pair; older collectors refuse the type.
export const ShadowSchema = Type.Object({
  type: Type.Literal('shadow'),
  start: Millis,
  end: Millis,
  key: BreakerKeySchema,
  candidate: BreakerKeySchema,
  pairs: Count,
  dropped: Count,
  primary: ShadowSideSchema,
  shadow: ShadowSideSchema,
});

/** Each event type and its schema; a type not listed here is refused. */
export const EVENT_SCHEMAS: Record<string, TSchema> = {
  transition: TransitionSchema,
  window: WindowSchema,
  tasks: TasksSchema,
  config: ConfigEventSchema,
  probe: ProbeSchema,
  shadow: ShadowSchema,
};

/** Most `passthrough` entries one batch carries (the SDK folds the rest into one `(other)` entry). */
export const MAX_PASSTHROUGH_ENTRIES = 100;

/** Requests forwarded unprotected to one host, path family and method (see `PassthroughCount` in types.ts). */
export const PassthroughCountSchema = Type.Object({
  host: Name(255),
  path_family: Name(200),
  method: Name(16),
  count: Type.Integer({ minimum: 1, maximum: MAX_COUNT }),
  why: Type.Optional(Short(100)),
});

/**
 * The batch envelope; events are only checked to be typed objects here, then per type. A
 * batch carries at least one event or one `passthrough` entry (checked after the schema).
 */
export const BatchEnvelopeSchema = Type.Object({
  batch_id: Type.String({ minLength: 1, maxLength: 128 }),
  source: Type.Object({
    service: Name(200),
    instance: Name(200),
    sdk: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  events: Type.Array(Type.Object({ type: Type.String() }), { maxItems: 5000 }),
  dropped_events: Type.Optional(Count),
  fleet: Type.Optional(Type.Object({ applied: Count, ignored: Count })),
  drill_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  passthrough: Type.Optional(Type.Array(PassthroughCountSchema, { minItems: 1, maxItems: MAX_PASSTHROUGH_ENTRIES })),
});

export const AckSchema = Type.Object({ accepted: Type.Integer(), duplicate: Type.Boolean() });

export const ErrorReplySchema = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String(), path: Type.Optional(Type.String()) }),
});

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile-time check: each wire type equals what its schema validates (mutual assignability). */
type Assert<V extends true> = V;
export type SchemaTypesAgree = [
  Assert<Same<Static<typeof BreakerKeySchema>, T.BreakerKey>>,
  Assert<Same<Static<typeof TransitionSchema>, T.TransitionEvent>>,
  Assert<Same<Static<typeof WindowSchema>, T.WindowEvent>>,
  Assert<Same<Static<typeof CallSampleSchema>, T.CallSample>>,
  Assert<Same<Static<typeof TasksSchema>, T.TasksEvent>>,
  Assert<Same<Static<typeof ConfigEventSchema>, T.ConfigEvent>>,
  Assert<Same<Static<typeof ProbeSchema>, T.ProbeEvent>>,
  Assert<Same<Static<typeof ShadowSideSchema>, T.ShadowSide>>,
  Assert<Same<Static<typeof ShadowSchema>, T.ShadowEvent>>,
  Assert<Same<Static<typeof PassthroughCountSchema>, T.PassthroughCount>>,
  Assert<Same<Omit<Static<typeof BatchEnvelopeSchema>, 'events'>, Omit<T.TelemetryBatch, 'events'>>>,
  Assert<Same<Static<typeof AckSchema>, T.TelemetryAck>>,
  Assert<Equals<Static<typeof ErrorClassName>, T.ErrorClass>>,
  Assert<Same<Static<typeof DrillCommandSchema>, T.DrillCommand>>,
];

// The fleet feed (docs/fleet.md): the wire decision and the subscription query.

/**
 * What a decision asks of a breaker: `outage` (a probe-confirmed provider outage) and
 * `drain` (on-call takes the key out) force it open for `ttl_ms`; `recovered` (the probes
 * that decided the outage are ok again) and `release` (on-call ends a drain) send an open
 * breaker to half-open at once.
 */
export const FLEET_DECISION_KINDS = ['outage', 'recovered', 'drain', 'release'] as const;
export type FleetDecisionKind = (typeof FLEET_DECISION_KINDS)[number];

/** Longest time-to-live the collector ever sends, ms; the SDK caps what it applies at its own `maxTtlMs`. */
export const MAX_FLEET_TTL_MS = 600_000;

/** One decision on the wire (the `data` of an SSE `decision` event). */
export const FleetDecisionSchema = Type.Object({
  /** Stable per decision; a renewal repeats the id with a fresh `ttl_ms`. */
  id: Type.String({ minLength: 1, maxLength: 64 }),
  kind: Type.Union(FLEET_DECISION_KINDS.map((k) => Type.Literal(k))),
  key: BreakerKeySchema,
  /**
   * How long from receipt the decision holds, ms — relative, so a skewed clock on either
   * side cannot stretch it. 0 for `recovered` / `release`, which act once.
   */
  ttl_ms: Type.Integer({ minimum: 0, maximum: MAX_FLEET_TTL_MS }),
  /** Why, for people (the verdict and its evidence, or the operator's reason). */
  reason: Type.String({ maxLength: 1000 }),
  /** When the collector first issued it, ms since the epoch (display only: never used for timing). */
  issued_at: Type.Integer({ minimum: 0 }),
});
export type FleetDecision = Static<typeof FleetDecisionSchema>;

/**
 * `GET /v1/fleet` query: the keys the instance uses, as tags (comma-separated), or none for
 * every key; and its service, which drill commands (docs/drills.md) are addressed to.
 */
export const FleetFeedQuerySchema = Type.Object({
  keys: Type.Optional(Type.String({ maxLength: 17 * 500, pattern: '^[0-9a-f]{16}(,[0-9a-f]{16})*$' })),
  service: Type.Optional(Name(200)),
});
export type FleetFeedQuery = Static<typeof FleetFeedQuerySchema>;

/** Most key tags one subscription may name; an instance with more subscribes to every key and filters itself. */
export const MAX_FLEET_FEED_KEYS = 500;

/**
 * The SSE event names of the feed: `decision` (data: a FleetDecision), `drill` (data: a
 * DrillCommand, sent only to feeds that named its service) and `ready` (data: `{}` once the
 * snapshot is sent).
 */
export const FLEET_EVENTS = { decision: 'decision', drill: 'drill', ready: 'ready' } as const;

/** Longest one drill of a command may run, ms (an hour). */
export const MAX_DRILL_STEP_MS = 3_600_000;

/** A drill command on the wire (see `DrillCommand` in types.ts). */
export const DrillCommandSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  service: Name(200),
  kinds: Type.Array(Type.Union(DRILL_KINDS.map((k) => Type.Literal(k))), { minItems: 1, maxItems: DRILL_KINDS.length }),
  keys: Type.Optional(Type.Array(BreakerKeySchema, { minItems: 1, maxItems: 100 })),
  step_ms: Type.Integer({ minimum: 0, maximum: MAX_DRILL_STEP_MS }),
  issued_at: Type.Integer({ minimum: 0 }),
});

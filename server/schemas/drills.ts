import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema, DrillCommandSchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull } from './common.ts';

/**
 * The failure drills' routes (docs/drills.md, docs/api.md): start and stop a run (admin),
 * list runs and read one with its report (admin). The command the feed sends is the
 * protocol's DrillCommand; these are the collector's own views. Imports only TypeBox and
 * the protocol package.
 */

/** One drill kind (`rate_limit`, `slow_first_byte`, …), as the protocol names them. */
export const DrillKindSchema = DrillCommandSchema.properties.kinds.items;
export type DrillKindName = Static<typeof DrillKindSchema>;

/** `POST /api/drills` body: the service, which drills (default all six), which keys (default every chain's primary), how long each runs. */
export const StartDrillBody = Type.Object(
  {
    service: DrillCommandSchema.properties.service,
    kinds: Type.Optional(DrillCommandSchema.properties.kinds),
    keys: Type.Optional(Type.Array(BreakerKeySchema, { minItems: 1, maxItems: 100 })),
    minutes: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 60, description: 'how long each drill runs, minutes (default 10)' })),
    step_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'how long each drill runs, seconds (instead of minutes)' })),
    schedule_anyway: Type.Optional(Type.Boolean({ description: 'start the run even when no instance of the service is subscribed for drills (404 BB_ERR_DRILL_NO_SUBSCRIBERS otherwise)' })),
  },
  { additionalProperties: false },
);
export type StartDrillBody = Static<typeof StartDrillBody>;

/** One figure a drill was judged on: its value, what passes, and whether it did (null: could not be told). */
export const DrillCheck = Type.Object({
  name: Type.String(),
  value: Nullable('number'),
  expected: Type.String({ description: 'what passes, e.g. "<= 3" or "> 0"' }),
  passed: Type.Union([Type.Boolean(), Type.Null()]),
  text: Type.String({ description: 'the check as a sentence, with its figure' }),
});
export type DrillCheck = Static<typeof DrillCheck>;

/** What the alert a drill expects would have done: evaluated against the drill data, never notified. */
export const DrillAlert = Type.Object({
  rule: Type.String(),
  severity: Type.String(),
  would_fire: Type.Boolean(),
  enough: Type.Boolean({ description: "the drill had the calls (min_calls) and the duration (for_s) the rule needs; without them it cannot tell" }),
  verdict: Type.String(),
  hint: Nullable('string'),
  calls: Type.Number(),
  text: Type.String(),
});

/** Pass, fail, or inconclusive (no drill traffic, or a figure that could not be told). */
export const DrillOutcome = Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('inconclusive')]);
export type DrillOutcome = Static<typeof DrillOutcome>;

/** One drill of a run, judged. */
export const DrillResult = Type.Object({
  kind: DrillKindSchema,
  outcome: DrillOutcome,
  /** The span its traffic was taken from, ms since the epoch. */
  from: Type.Integer(),
  to: Type.Integer(),
  /** Drill traffic in the span: attempts on the drilled keys and calls (tasks) of the service. */
  attempts: Type.Number(),
  calls: Type.Number(),
  checks: Type.Array(DrillCheck),
  alert: Type.Optional(DrillAlert),
  /** Why it failed or was inconclusive, one sentence per reason; empty on a pass. */
  reasons: Type.Array(Type.String()),
});
export type DrillResult = Static<typeof DrillResult>;

/** A drill whose outcome changed since the service's previous run. */
export const DrillChange = Type.Object({ kind: DrillKindSchema, before: DrillOutcome, now: DrillOutcome });

/** The comparison with the previous judged run of the same service. */
export const DrillComparison = Type.Object({
  previous_id: Type.String(),
  previous_issued_at: Type.Integer(),
  /** pass → fail. */
  regressions: Type.Array(DrillChange),
  /** fail or inconclusive → pass. */
  fixed: Type.Array(DrillChange),
  /** Every other change (pass → inconclusive, …). */
  other: Type.Array(DrillChange),
});
export type DrillComparison = Static<typeof DrillComparison>;

/** A run's report, written once when the run has ended and its telemetry has arrived. */
export const DrillReport = Type.Object({
  outcome: DrillOutcome,
  judged_at: Type.Integer(),
  batches: Type.Integer(),
  instances: Type.Array(Type.String()),
  drills: Type.Array(DrillResult),
  comparison: OrNull(DrillComparison),
});
export type DrillReport = Static<typeof DrillReport>;

/** A run as the API shows it. */
export const DrillRunView = Type.Object({
  id: Type.String(),
  service: Type.String(),
  kinds: Type.Array(DrillKindSchema),
  keys: OrNull(Type.Array(BreakerKeySchema)),
  step_ms: Type.Integer(),
  issued_at: Type.Integer(),
  ends_at: Type.Integer(),
  stopped_at: Nullable('integer'),
  stopped_by: Nullable('string'),
  created_by: Nullable('string'),
  status: Type.Union([Type.Literal('running'), Type.Literal('judging'), Type.Literal('done')], { description: 'judging: ended, waiting drills.grace_s for late telemetry' }),
  report: OrNull(DrillReport),
});
export type DrillRunView = Static<typeof DrillRunView>;

/** `GET /api/drills` query. */
export const DrillListQuery = Type.Object({
  service: Type.Optional(DrillCommandSchema.properties.service),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'runs to list (default 50, at most 500)' })),
});

/** `GET /api/drills` reply. */
export const DrillListReply = Type.Object({ runs: Type.Array(DrillRunView), subscribers: Type.Integer({ description: 'feeds this collector holds open' }) });
/** One run's reply (start, stop, read). */
export const DrillRunReply = Type.Object({
  run: DrillRunView,
  /** Feeds of this collector the command went to (start and stop only). */
  sent_to: Type.Optional(Type.Integer()),
});
export type DrillRunReply = Static<typeof DrillRunReply>;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Route schemas. */
export const StartDrillRoute = { body: StartDrillBody, response: { 201: DrillRunReply, ...ErrorReplies } };
export const StopDrillRoute = { params: IdParams, response: { 200: DrillRunReply, ...ErrorReplies } };
export const DrillRunRoute = { params: IdParams, response: { 200: DrillRunReply, ...ErrorReplies } };
export const DrillListRoute = { querystring: DrillListQuery, response: { 200: DrillListReply, ...ErrorReplies } };

import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull, SomeErrorCounts, TimeRange, WindowParams } from './common.ts';

/** `GET /api/shadow` — shadow traffic compared per primary -> candidate pair (docs/api.md, docs/lifecycle.md). */

/** Query: the window, and optionally one primary key (the key page asks for its own). */
export const ShadowQuery = Type.Object({
  ...WindowParams,
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  region: Type.Optional(Type.String({ maxLength: 100 })),
});
export type ShadowQuery = Static<typeof ShadowQuery>;

/** A share with its sample size and Wilson 95 % interval. */
export const ShareEstimate = Type.Object({
  value: Type.Number(),
  n: Type.Integer(),
  low: Type.Number(),
  high: Type.Number(),
});
export type ShareEstimate = Static<typeof ShareEstimate>;

/** One side's figures over the mirrored requests (null: nothing to measure, or too few answers for that figure). */
export const ShadowSideView = Type.Object({
  answers: Type.Integer(),
  ok: Type.Integer(),
  errors: SomeErrorCounts,
  error_share: OrNull(ShareEstimate),
  truncation_share: OrNull(ShareEstimate),
  refusal_share: OrNull(ShareEstimate),
  json_valid_share: OrNull(ShareEstimate),
  validation_pass_share: OrNull(ShareEstimate),
  latency_p50_ms: Nullable('number'),
  latency_p95_ms: Nullable('number'),
  ttft_p50_ms: Nullable('number'),
  ttft_p95_ms: Nullable('number'),
  ttft_answers: Type.Integer(),
  output_tokens_per_call: Nullable('number'),
  cost_per_call_usd: Nullable('number'),
});
export type ShadowSideView = Static<typeof ShadowSideView>;

/** A share compared between the sides with a two-proportion z-test. */
export const ShareDifference = Type.Object({
  metric: Type.String(),
  primary: Type.Number(),
  shadow: Type.Number(),
  /** null when either side has too few answers to test. */
  z: Nullable('number'),
  significant: Type.Boolean(),
});
export type ShareDifference = Static<typeof ShareDifference>;

/** The bill at the primary's current volume, now and with the candidate. */
export const ProjectedBill = Type.Object({
  primary_calls_per_month: Type.Number(),
  primary_usd_per_month: Type.Number(),
  projected_usd_per_month: Type.Number(),
  /** Candidate cost per call over the primary's, on the same requests. */
  ratio: Type.Number(),
  delta_usd_per_month: Type.Number(),
});
export type ProjectedBill = Static<typeof ProjectedBill>;

/** One primary -> candidate pair. */
export const ShadowPairView = Type.Object({
  key: BreakerKeySchema,
  candidate: BreakerKeySchema,
  services: Type.Array(Type.String()),
  pairs: Type.Integer(),
  dropped: Type.Integer(),
  last_seen: Type.Integer(),
  primary: ShadowSideView,
  shadow: ShadowSideView,
  differences: Type.Array(ShareDifference),
  bill: OrNull(ProjectedBill),
  /** The bill in words ("switching raises the bill by ×3.1, +$4,200 / month"), or why there is none. */
  bill_statement: Type.String(),
  /** Plain statements of what is not yet significant or not yet measured. */
  not_significant: Type.Array(Type.String()),
});
export type ShadowPairView = Static<typeof ShadowPairView>;

/** Reply of `GET /api/shadow`. */
export const ShadowView = Type.Object({
  window: TimeRange,
  /** The tests used, in words (shares: two-proportion z-test and Wilson intervals; percentiles: minimum answers). */
  method: Type.String(),
  pairs: Type.Array(ShadowPairView),
});
export type ShadowView = Static<typeof ShadowView>;

/** Route schema. */
export const ShadowRoute = { querystring: ShadowQuery, response: { 200: ShadowView, ...ErrorReplies } };

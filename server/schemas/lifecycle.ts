import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull, StringEnum, TimeRange } from './common.ts';

/** `GET /api/lifecycle` — the models in use with their retirement dates (docs/api.md, docs/lifecycle.md). */

/** Query of `GET /api/lifecycle`. */
export const LifecycleQuery = Type.Object({
  days: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}$', description: 'traffic over this many days (1..90, default: alerts.rules.model_retiring.traffic_days)' })),
});

/** Where a model stands: retired, retiring within the rule's critical or warning days, scheduled later, or no date known. */
export const LIFECYCLE_STATUSES = ['retired', 'critical', 'warning', 'scheduled', 'no_date'] as const;
export const LifecycleStatus = StringEnum(LIFECYCLE_STATUSES);
export type LifecycleStatus = Static<typeof LifecycleStatus>;

/** The calendar entry that applies to a model. */
export const RetirementView = Type.Object({
  shutdown: Type.String(),
  shutdown_at: Type.Integer(),
  successor: Nullable('string'),
  link: Nullable('string'),
  /** The entry as written: an exact id, or a pattern with `*`. */
  matched: Type.String(),
  /** `provider`: no calendar entry; the date is the `Sunset` header the model's answers carried. */
  source: StringEnum(['config', 'shipped', 'provider'] as const),
  /** For shipped entries: the day the provider's page was read. */
  read_on: Nullable('string'),
});
export type RetirementView = Static<typeof RetirementView>;

/** The provider's own deprecation signal on the model's answers (`Deprecation` / `Sunset` headers), the latest over its keys. */
export const ProviderSignalView = Type.Object({
  deprecation_at: Nullable('integer'),
  sunset_at: Nullable('integer'),
  /** Answers that carried a signal. */
  responses: Type.Integer(),
  last_seen: Type.Integer(),
  /** In words: "sunset announced by the provider: 2027-01-14, seen on 40 responses". */
  text: Type.String(),
});
export type ProviderSignalView = Static<typeof ProviderSignalView>;

/** One model (provider + model id) called in the window, over every key naming it. */
export const ModelInUse = Type.Object({
  provider: Type.String(),
  model: Type.String(),
  keys: Type.Array(BreakerKeySchema),
  calls: Type.Number(),
  cost_usd: Type.Number(),
  calls_per_day: Type.Number(),
  cost_per_day_usd: Type.Number(),
  services: Type.Array(Type.String()),
  retirement: OrNull(RetirementView),
  days_left: Nullable('integer'),
  status: LifecycleStatus,
  provider_signal: OrNull(ProviderSignalView),
});
export type ModelInUse = Static<typeof ModelInUse>;

/** Reply of `GET /api/lifecycle`. */
export const LifecycleView = Type.Object({
  window: TimeRange,
  days: Type.Integer(),
  /** The model_retiring rule's thresholds the statuses use. */
  warning_days: Type.Integer(),
  critical_days: Type.Integer(),
  models: Type.Array(ModelInUse),
  calendar: Type.Object({ configured: Type.Integer(), shipped: Type.Integer() }),
});
export type LifecycleView = Static<typeof LifecycleView>;

/** Route schema. */
export const LifecycleRoute = { querystring: LifecycleQuery, response: { 200: LifecycleView, ...ErrorReplies } };

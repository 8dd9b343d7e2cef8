import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema, PROBE_OUTCOMES } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull, PageFields, PagedWindowQuery, StringEnum, TimeRange } from './common.ts';
import { ProbeFigures } from './verdicts.ts';

/** `GET /api/probes` (the probe view) and `GET /v1/probe-requests` (probe on suspicion) — docs/api.md, docs/alerts.md. */

/** A prober location judged on its own: is it the location, not the providers, that fails? */
export const LocationHealth = Type.Object({
  location: Type.String(),
  status: StringEnum(['healthy', 'unhealthy'] as const),
  /** Keys with a usable status from this location. */
  keys: Type.Number(),
  failing_keys: Type.Number(),
  /** Providers of the failing keys, sorted. */
  failing_providers: Type.Array(Type.String()),
  /** Network + timeout share of its recent failed probes; null when not read. */
  network_share: Nullable('number'),
  /** The sentence that explains an unhealthy location (null when healthy). */
  reason: Nullable('string'),
});
export type LocationHealth = Static<typeof LocationHealth>;

/** Per location: what probe on suspicion asked of it over a window. */
export const OnDemandCounts = Type.Object({
  requested: Type.Number(),
  delivered: Type.Number(),
  /** Probes the location ran on request (events with `trigger: 'suspicion'`). */
  served: Type.Number(),
  /** Not yet handed out and not expired. */
  pending: Type.Number(),
  expired: Type.Number(),
});
export type OnDemandCounts = Static<typeof OnDemandCounts>;

/** How a probe ended (protocol v1's `probe.outcome`). */
export const ProbeOutcome = StringEnum(PROBE_OUTCOMES);

/** A failed probe's evidence (issue 27), each field present only when the prober sent it. */
const FailureEvidence = {
  /** The provider's own request id of the failed probe. */
  upstream_request_id: Type.Optional(Type.String()),
  error_type: Type.Optional(Type.String()),
  error_code: Type.Optional(Type.String()),
  /** The provider's error message, cut and redacted by the prober; for a `wrong_answer`, what the canary expected. */
  message: Type.Optional(Type.String()),
  /** A `wrong_answer`'s first characters, redacted by the prober (issue 39). */
  answer_excerpt: Type.Optional(Type.String()),
  /** The served model version the answer named (`model` / `modelVersion`; OpenAI's `system_fingerprint`). */
  model_served: Type.Optional(Type.String()),
  system_fingerprint: Type.Optional(Type.String()),
};

/** One raw probe result. */
export const ProbeResult = Type.Object({
  ts: Type.Integer(),
  outcome: ProbeOutcome,
  error_class: Nullable('string'),
  status: Nullable('number'),
  total_ms: Type.Number(),
  ...FailureEvidence,
});
export type ProbeResult = Static<typeof ProbeResult>;

/** The latest result of a target, with its latency split. */
export const LastProbe = Type.Object({
  ts: Type.Integer(),
  outcome: ProbeOutcome,
  error_class: Nullable('string'),
  status: Nullable('number'),
  latency_ms: Type.Object({ connect: Nullable('number'), ttfb: Nullable('number'), total: Type.Number() }),
  cold: Type.Boolean(),
  ...FailureEvidence,
});
export type LastProbe = Static<typeof LastProbe>;

/** One location of the probe view. */
export const ProbeLocation = Type.Object({
  location: Type.String(),
  last_ts: Nullable('number'),
  /** The location judged on its own: unhealthy means a prober problem, its probes set aside. */
  health: LocationHealth,
  /** Probe on suspicion over the window (null when the trigger is off). */
  on_demand: OrNull(OnDemandCounts),
  targets: Type.Array(Type.Object({ key: BreakerKeySchema, figures: ProbeFigures, last: OrNull(LastProbe), recent: Type.Array(ProbeResult) })),
});

/** The probe view over a window. */
export const ProbesView = Type.Object({ window: TimeRange, locations: Type.Array(ProbeLocation) });
export type ProbesView = Static<typeof ProbesView>;

/** Query of `GET /api/probes`. */
export const ProbesQuery = PagedWindowQuery;
/** Reply of `GET /api/probes`: one page of targets (location × key), grouped by location. */
export const ProbesPage = Type.Object({ window: TimeRange, locations: Type.Array(ProbeLocation), ...PageFields });
export type ProbesPage = Static<typeof ProbesPage>;

/** Query of `GET /v1/probe-requests`. */
export const ProbeRequestsQuery = Type.Object(
  {
    location: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: "the prober's location" }),
    wait_s: Type.Optional(Type.Integer({ minimum: 0, maximum: 120, description: 'wait this long for a request (capped by suspicion.long_poll_s)' })),
    max: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

/** Reply of `GET /v1/probe-requests`: probes to run now; an empty list when none came within the wait. */
export const ProbeRequestsReply = Type.Object({
  requests: Type.Array(
    Type.Object({
      id: Type.Integer(),
      key: BreakerKeySchema,
      requested_at: Type.Integer(),
      suspicion_id: Type.Integer(),
    }),
  ),
  /** Poll again after this long (ms); 0 = at once. */
  retry_after_ms: Type.Integer({ minimum: 0 }),
});
export type ProbeRequestsReply = Static<typeof ProbeRequestsReply>;

/** Route schemas. */
export const ProbesRoute = { querystring: ProbesQuery, response: { 200: ProbesPage, ...ErrorReplies } };
export const ProbeRequestsRoute = {
  description: 'Long-poll: probes the collector asks of this location now (probe on suspicion).',
  querystring: ProbeRequestsQuery,
  response: { 200: ProbeRequestsReply, ...ErrorReplies },
};

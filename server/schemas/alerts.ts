import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies, Nullable, OrNull, StringEnum } from './common.ts';
import { MaybeHint, Verdict } from './verdicts.ts';

/** `GET /api/alerts`, the silences (`/api/silences`) and `GET /api/notifications` — docs/api.md. */

/** The alert rules. */
export const RULES = ['flapping', 'open_share', 'fallback_failing', 'probe_failing', 'cost_per_success', 'prober_unhealthy', 'clients_degraded', 'prober_silent', 'model_retiring', 'serving_degraded'] as const;
export const RuleName = StringEnum(RULES);
export type RuleName = Static<typeof RuleName>;

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export const Severity = StringEnum(SEVERITIES);
export type Severity = Static<typeof Severity>;

export const ALERT_STATES = ['pending', 'firing', 'resolved'] as const;
export const AlertState = StringEnum(ALERT_STATES);
export type AlertState = Static<typeof AlertState>;

/** An alert as the API shows it. */
export const AlertView = Type.Object({
  id: Type.Integer(),
  fingerprint: Type.String(),
  rule: RuleName,
  key: OrNull(BreakerKeySchema),
  location: Nullable('string'),
  operation: Nullable('string'),
  state: AlertState,
  severity: Severity,
  summary: Type.String(),
  value: Nullable('number'),
  started_at: Type.Integer(),
  fired_at: Nullable('integer'),
  resolved_at: Nullable('integer'),
  updated_at: Type.Integer(),
  verdict: OrNull(Verdict),
  hint: MaybeHint,
  /** The incident id its notifications are grouped under (its own fingerprint when in none). */
  group_key: Nullable('string'),
  silenced: Type.Boolean(),
  silenced_by: Type.Array(Type.String()),
});
export type AlertView = Static<typeof AlertView>;

const Fingerprint = Type.String({ pattern: '^[0-9a-f]{16}$' });

/** Query of `GET /api/alerts`. */
export const AlertsQuery = Type.Object({
  state: Type.Optional(AlertState),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  fingerprint: Type.Optional(Fingerprint),
});
/** Reply of `GET /api/alerts`. */
export const AlertsReply = Type.Object({ alerts: Type.Array(AlertView) });
export type AlertsReply = Static<typeof AlertsReply>;

/** Alert fields a silence matcher can name. */
export const MATCHER_NAMES = ['rule', 'provider', 'endpoint', 'model', 'region', 'location', 'operation', 'severity', 'fingerprint'] as const;
export const MatcherName = StringEnum(MATCHER_NAMES);
export type MatcherName = Static<typeof MatcherName>;

/** One label matcher of a silence. */
export const Matcher = Type.Object({ name: MatcherName, value: Type.String(), regex: Type.Boolean() });
export type Matcher = Static<typeof Matcher>;

/** Body of `POST /api/silences`. */
export const SilenceBody = Type.Object(
  {
    matchers: Type.Array(
      Type.Object(
        {
          name: MatcherName,
          value: Type.String({ minLength: 1, maxLength: 300 }),
          regex: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    starts_at: Type.Optional(Type.Integer({ minimum: 0 })),
    ends_at: Type.Integer({ minimum: 0 }),
    comment: Type.String({ minLength: 1, maxLength: 1000 }),
    created_by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
/** The body of `POST /api/silences` after schema validation. */
export type SilenceInput = Static<typeof SilenceBody>;

/** A silence as the API shows it; its state is derived from the clock. */
export const Silence = Type.Object({
  id: Type.String(),
  matchers: Type.Array(Matcher),
  starts_at: Type.Integer(),
  ends_at: Type.Integer(),
  comment: Type.String(),
  created_by: Type.String(),
  created_at: Type.Integer(),
  state: StringEnum(['pending', 'active', 'expired'] as const),
});
export type Silence = Static<typeof Silence>;

/** Reply of `POST /api/silences` (201) and `DELETE /api/silences/:id`. */
export const SilenceReply = Type.Object({ silence: Silence });
/** Reply of `GET /api/silences`: active first, then pending, then those that ended in the last week. */
export const SilencesReply = Type.Object({ silences: Type.Array(Silence) });
/** Params of `DELETE /api/silences/:id`. */
export const SilenceParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** What a notification is about: a first page, a change in its group, a reminder, the end. */
export const NotificationEvent = StringEnum(['firing', 'update', 'repeat', 'resolved'] as const);

/** One recorded delivery. */
export const Delivery = Type.Object({
  id: Type.Integer(),
  notifier: Type.String(),
  type: Type.String(),
  alert_id: Type.Integer(),
  fingerprint: Type.String(),
  rule: Type.String(),
  /** The notification group (incident id, or the alert's fingerprint). */
  group_key: Nullable('string'),
  event: NotificationEvent,
  status: StringEnum(['pending', 'ok', 'failed'] as const),
  attempts: Type.Integer(),
  http_status: Nullable('integer'),
  error: Nullable('string'),
  created_at: Type.Integer(),
  finished_at: Nullable('integer'),
});
export type Delivery = Static<typeof Delivery>;

/** One configured notifier and its queue now. */
export const NotifierStatus = Type.Object({
  name: Type.String(),
  type: Type.String(),
  url: Nullable('string'),
  min_severity: Type.String(),
  queued: Type.Integer(),
  in_flight: Type.Integer(),
});
export type NotifierStatus = Static<typeof NotifierStatus>;

/** Query of `GET /api/notifications`. */
export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  notifier: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(StringEnum(['ok', 'failed', 'pending'] as const)),
  fingerprint: Type.Optional(Fingerprint),
});
/** Reply of `GET /api/notifications`: the notifiers and their latest deliveries. */
export const NotificationsReply = Type.Object({ notifiers: Type.Array(NotifierStatus), deliveries: Type.Array(Delivery) });
export type NotificationsReply = Static<typeof NotificationsReply>;

/** Route schemas. */
export const AlertsRoute = { querystring: AlertsQuery, response: { 200: AlertsReply, ...ErrorReplies } };
export const CreateSilenceRoute = { body: SilenceBody, response: { 201: SilenceReply, ...ErrorReplies } };
export const SilencesRoute = { response: { 200: SilencesReply, ...ErrorReplies } };
export const ExpireSilenceRoute = { params: SilenceParams, response: { 200: SilenceReply, ...ErrorReplies } };
export const NotificationsRoute = { querystring: DeliveriesQuery, response: { 200: NotificationsReply, ...ErrorReplies } };

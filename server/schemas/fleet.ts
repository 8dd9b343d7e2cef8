import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema, FLEET_DECISION_KINDS, FleetFeedQuerySchema } from '@breakerbox/protocol/schemas';
import { ErrorReplies } from './common.ts';

/**
 * The fleet routes' contract (docs/fleet.md, docs/api.md): the feed `GET /v1/fleet` (its
 * query and its SSE events are protocol schemas, shared with the SDK) and the admin routes
 * the dashboard and the CLI use. Imports only TypeBox and the protocol package.
 */

/** `GET /v1/fleet` query. */
export const FleetFeedQuery = FleetFeedQuerySchema;

const Reason = Type.String({ minLength: 1, maxLength: 1000, description: 'why, for the audit trail and the instances' });

/** `POST /api/fleet/drain` body: the key, why, and until when (one of `expires_at` or `expires_in_s`). */
export const DrainBody = Type.Object(
  {
    key: BreakerKeySchema,
    reason: Reason,
    expires_at: Type.Optional(Type.Integer({ minimum: 0, description: 'ms since the epoch' })),
    expires_in_s: Type.Optional(Type.Integer({ minimum: 1, description: 'seconds from now' })),
  },
  { additionalProperties: false },
);
export type DrainBody = Static<typeof DrainBody>;

/** `POST /api/fleet/release` body. */
export const ReleaseBody = Type.Object({ key: BreakerKeySchema, reason: Reason }, { additionalProperties: false });
export type ReleaseBody = Static<typeof ReleaseBody>;

/** `GET /api/fleet` query: one key's decisions. */
export const FleetListQuery = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  model: Type.String({ minLength: 1, maxLength: 300 }),
  region: Type.Optional(Type.String({ maxLength: 100 })),
  since: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'ms since the epoch (default: 7 days ago)' })),
});
export type FleetListQuery = Static<typeof FleetListQuery>;

/** A decision as the API shows it. */
export const FleetDecisionView = Type.Object({
  id: Type.String(),
  kind: Type.Union(FLEET_DECISION_KINDS.map((k) => Type.Literal(k))),
  key: BreakerKeySchema,
  origin: Type.Union([Type.Literal('verdict'), Type.Literal('operator')]),
  reason: Type.String(),
  created_by: Type.Union([Type.String(), Type.Null()]),
  locations: Type.Array(Type.String()),
  issued_at: Type.Integer(),
  expires_at: Type.Integer(),
  ended_at: Type.Union([Type.Integer(), Type.Null()]),
  ended_by: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  applied_instances: Type.Integer({ description: 'instances that reported the transition this decision asks for' }),
});
export type FleetDecisionViewBody = Static<typeof FleetDecisionView>;

/** `GET /api/fleet` reply. */
export const FleetListReply = Type.Object({ decisions: Type.Array(FleetDecisionView), subscribers: Type.Integer({ description: 'feeds this collector holds open' }) });
/** `POST /api/fleet/drain` and `/release` reply. */
export const FleetActionReply = Type.Object({ decision: FleetDecisionView });

/** The feed is a stream of Server-Sent Events written to the socket; the schema says so (the serialiser is not used for a stream). */
export const FleetFeedStream = Type.String({ description: 'text/event-stream: `decision` events (data: a protocol FleetDecision) and one `ready` once the decisions in force are sent' });

/** Route schemas. */
export const FleetFeedRoute = { querystring: FleetFeedQuery, response: { 200: FleetFeedStream, ...ErrorReplies } };
export const FleetListRoute = { querystring: FleetListQuery, response: { 200: FleetListReply, ...ErrorReplies } };
export const DrainRoute = { body: DrainBody, response: { 201: FleetActionReply, ...ErrorReplies } };
export const ReleaseRoute = { body: ReleaseBody, response: { 201: FleetActionReply, ...ErrorReplies } };

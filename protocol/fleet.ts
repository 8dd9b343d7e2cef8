/**
 * The fleet feed (docs/fleet.md): what the collector tells the SDK instances that subscribe
 * to `GET /v1/fleet`. One definition of the wire decision and its schema, shared by the
 * collector (which sends it) and the SDK (which validates every event before acting).
 */
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { BreakerKeySchema } from './schemas.ts';
import { keyId } from './key.ts';
import type { BreakerKey } from './types.ts';

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

/** `GET /v1/fleet` query: the keys the instance uses, as tags (comma-separated), or none for every key. */
export const FleetFeedQuerySchema = Type.Object({
  keys: Type.Optional(Type.String({ maxLength: 17 * 500, pattern: '^[0-9a-f]{16}(,[0-9a-f]{16})*$' })),
});
export type FleetFeedQuery = Static<typeof FleetFeedQuerySchema>;

/** Most key tags one subscription may name; an instance with more subscribes to every key and filters itself. */
export const MAX_FLEET_FEED_KEYS = 500;

/** The SSE event names of the feed: `decision` (data: a FleetDecision) and `ready` (data: `{}` once the snapshot is sent). */
export const FLEET_EVENTS = { decision: 'decision', ready: 'ready' } as const;

/**
 * A short, URL-safe tag of a key (16 hex of the SHA-256 of its id): the subscription names
 * its keys with these, so model ids with `/`, `:` or `@` never meet a query string.
 */
export function fleetKeyTag(key: BreakerKey): string {
  return createHash('sha256').update(keyId(key)).digest('hex').slice(0, 16);
}

const checkDecision = TypeCompiler.Compile(FleetDecisionSchema);

/**
 * Parses one feed event's data into a decision, or null when it is not one (not JSON, a
 * field missing, out of range, a kind this version does not know): a lying or broken
 * collector is ignored, never trusted in part.
 */
export function parseFleetDecision(data: string): FleetDecision | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  return checkDecision.Check(value) ? value : null;
}

/**
 * The SDK's safety rules for one fleet decision (docs/fleet.md, "Safety rules"): which
 * breaker it may touch and how. A decision only ever acts on a key this instance already
 * uses, opens a key without a fallback only when the operator opted in, holds a breaker
 * open for at most `maxTtlMs` per decision, and never overrides the application's own
 * `forceOpen`.
 */
import type { BreakerKey, FleetDecision } from '@breakerbox/protocol';
import type { Breaker } from '../policies/breaker.ts';

/** Why a decision did nothing. */
export type FleetIgnoreReason = 'unknown_key' | 'no_fallback' | 'manual_override' | 'not_open' | 'overruled' | 'invalid';

/** What one decision did, as `onFleetDecision` listeners see it. */
export type FleetDecisionOutcome =
  | { readonly outcome: 'applied' | 'renewed'; readonly decision: FleetDecision; readonly ttlMs: number }
  | { readonly outcome: 'ignored'; readonly decision: FleetDecision | null; readonly why: FleetIgnoreReason };

/** What applying needs of the SDK instance. */
export interface FleetApplyHost {
  /** The breaker of a key this instance uses, or undefined — never created for a decision. */
  breakerOf(key: BreakerKey): Breaker | undefined;
  /** Whether the key has a fallback declared (an operation level or a fetch fallback route). */
  hasFallback(key: BreakerKey): boolean;
}

/** The rule settings. */
export interface FleetApplySettings {
  openWithoutFallback: boolean;
  maxTtlMs: number;
}

/** Applies one validated decision. */
export function applyFleetDecision(d: FleetDecision, host: FleetApplyHost, s: FleetApplySettings): FleetDecisionOutcome {
  const breaker = host.breakerOf(d.key);
  if (!breaker) return { outcome: 'ignored', decision: d, why: 'unknown_key' };
  if (d.kind === 'outage' || d.kind === 'drain') {
    // Opening a key with nowhere to fail over turns every call into an error on the collector's word alone.
    if (!s.openWithoutFallback && !host.hasFallback(d.key)) return { outcome: 'ignored', decision: d, why: 'no_fallback' };
    const ttlMs = Math.min(d.ttl_ms, s.maxTtlMs);
    const effect = breaker.fleetOpen(ttlMs, d.kind === 'outage' ? 'fleet_outage' : 'fleet_drain', d.id);
    if (effect === 'applied' || effect === 'renewed') return { outcome: effect, decision: d, ttlMs };
    return { outcome: 'ignored', decision: d, why: effect };
  }
  const effect = breaker.fleetHalfOpen(d.kind === 'recovered' ? 'fleet_recovered' : 'fleet_release');
  if (effect === 'applied') return { outcome: 'applied', decision: d, ttlMs: 0 };
  return { outcome: 'ignored', decision: d, why: effect === 'renewed' ? 'not_open' : effect };
}

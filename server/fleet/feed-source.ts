/**
 * What a collector pushes to its feeds, read from the database (so every collector, leader
 * or follower, serves the same decisions): every poll it reads the decisions in force and
 * broadcasts those that are new or changed; every renewal period it re-sends the ones that
 * hold a breaker open, so an instance's time-to-live is renewed for exactly as long as the
 * stored decision runs — and lapses by itself when no collector sends any more.
 */
import { FLEET_DECISION_KINDS, MAX_FLEET_TTL_MS, type FleetDecision } from '@breakerbox/protocol';
import type { FleetDecisionRecord, FleetPart } from '../storage/storage.ts';
import type { FeedHub, TaggedDecision } from './feed-hub.ts';

/** The wire form of a stored decision at `now`, or null when it no longer holds anything open. */
export function toWire(r: FleetDecisionRecord, now: number, ttlMs: number): TaggedDecision | null {
  const holds = r.kind === 'outage' || r.kind === 'drain';
  const ttl = holds ? Math.min(r.expiresAt - now, ttlMs, MAX_FLEET_TTL_MS) : 0;
  if (holds && ttl <= 0) return null;
  const wire: FleetDecision = { id: r.id, kind: r.kind, key: r.key, ttl_ms: ttl, reason: r.reason, issued_at: r.issuedAt };
  return { wire, tag: r.keyTag };
}

/** The decisions in force, kept between polls, and the broadcasts. */
export interface FeedSource {
  /** Reads the decisions in force and broadcasts the new and changed ones; every `renewMs` re-sends those holding breakers open. */
  poll(now: number): Promise<void>;
  /** What a new feed is sent first: the decisions in force as of the last poll. */
  snapshot(now: number): TaggedDecision[];
}

/** Creates the source over the fleet part and a hub. */
export function createFeedSource(store: Pick<FleetPart, 'running'>, hub: FeedHub, o: { ttlMs: number; renewMs: number }): FeedSource {
  // Only the decisions in force: bounded by what on-call and the verdicts have running, replaced each poll.
  let current = new Map<string, FleetDecisionRecord>();
  let lastRenewal = -Infinity;
  const wires = (records: Iterable<FleetDecisionRecord>, now: number) => {
    const out: TaggedDecision[] = [];
    for (const r of records) {
      const w = toWire(r, now, o.ttlMs);
      if (w) out.push(w);
    }
    return out;
  };
  return {
    async poll(now) {
      const running = await store.running(now, FLEET_DECISION_KINDS);
      const next = new Map(running.map((r) => [r.id, r]));
      const renewal = now - lastRenewal >= o.renewMs;
      if (renewal) lastRenewal = now;
      const changed = running.filter((r) => {
        const before = current.get(r.id);
        if (!before || before.updatedAt !== r.updatedAt) return true;
        return renewal && (r.kind === 'outage' || r.kind === 'drain');
      });
      current = next;
      hub.broadcast(wires(changed, now));
    },
    snapshot: (now) => wires(current.values(), now),
  };
}

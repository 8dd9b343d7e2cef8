/**
 * The subscribers of one collector's fleet feed (`GET /v1/fleet`) and what is written to
 * them. A decision is serialised once and the same bytes go to every matching feed; a feed
 * whose socket has more than `maxBufferedBytes` unsent is closed (its instance reconnects
 * and gets a fresh snapshot), so memory per subscriber stays bounded whatever the network.
 */
import type { Writable } from 'node:stream';
import { FLEET_EVENTS, formatSseEvent, type DrillCommand, type FleetDecision } from '@breakerbox/protocol';

/** One open feed. */
export interface FleetSubscriber {
  /** The socket-facing stream (a hijacked reply's `raw`). */
  readonly out: Writable;
  /** Key tags it asked for; null = every key. */
  readonly tags: ReadonlySet<string> | null;
  /** The service it named (`?service=`): drill commands go only to feeds of their service; null = none named, no drills. */
  readonly service: string | null;
}

/** A wire decision with its key's tag (computed once by the source, so a broadcast hashes nothing). */
export interface TaggedDecision {
  wire: FleetDecision;
  tag: string;
}

/** What a hub was asked to count. */
export interface HubCounts {
  /** Decisions written, by kind. */
  sent(kind: FleetDecision['kind'], n: number): void;
}

/** The subscribers and the writes to them. */
export interface FeedHub {
  /** Feeds open now. */
  readonly size: number;
  /** Adds a feed; returns its removal (idempotent). */
  add(s: FleetSubscriber): () => void;
  /** Writes decisions to every feed that asked for their keys (one SSE event each). */
  broadcast(decisions: readonly TaggedDecision[]): void;
  /** Writes decisions to one feed (its snapshot). Returns false when the feed was closed for being slow. */
  send(s: FleetSubscriber, decisions: readonly TaggedDecision[]): boolean;
  /** Writes a drill command to every feed that named its service; returns how many it went to. */
  drill(command: DrillCommand): number;
  /** Open feeds by the service they named (the ones drill commands can reach). */
  services(): Map<string, number>;
  /** A comment line to every feed, so proxies keep idle ones open. */
  heartbeat(): void;
  /** Ends every feed (collector shutting down). */
  closeAll(): void;
}

const HEARTBEAT = ': keep-alive\n\n';

/** Formats one decision as its SSE event. */
export const decisionEvent = (d: FleetDecision): string => formatSseEvent({ event: FLEET_EVENTS.decision, data: JSON.stringify(d) });

/** Creates a hub; `maxBufferedBytes` is the unsent-bytes cap per feed. */
export function createFeedHub(maxBufferedBytes: number, counts: HubCounts): FeedHub {
  const subs = new Set<FleetSubscriber>();
  const remove = (s: FleetSubscriber) => subs.delete(s);
  /** Writes or drops: a feed over its cap is destroyed rather than buffered without bound. */
  const write = (s: FleetSubscriber, text: string): boolean => {
    if (s.out.destroyed || s.out.writableEnded) {
      remove(s);
      return false;
    }
    if (s.out.writableLength + text.length > maxBufferedBytes) {
      remove(s);
      s.out.destroy();
      return false;
    }
    s.out.write(text);
    return true;
  };
  const wants = (s: FleetSubscriber, tag: string) => s.tags === null || s.tags.has(tag);
  return {
    get size() {
      return subs.size;
    },
    add(s) {
      subs.add(s);
      return () => void remove(s);
    },
    broadcast(decisions) {
      if (decisions.length === 0 || subs.size === 0) return;
      // One serialisation per decision, shared by every feed.
      const events = decisions.map((d) => ({ kind: d.wire.kind, tag: d.tag, text: decisionEvent(d.wire) }));
      for (const s of subs) {
        for (const e of events) {
          if (!wants(s, e.tag)) continue;
          if (!write(s, e.text)) break;
          counts.sent(e.kind, 1);
        }
      }
    },
    send(s, decisions) {
      for (const d of decisions) {
        if (!wants(s, d.tag)) continue;
        if (!write(s, decisionEvent(d.wire))) return false;
        counts.sent(d.wire.kind, 1);
      }
      return true;
    },
    drill(command) {
      let n = 0;
      let text: string | null = null;
      for (const s of subs) {
        if (s.service !== command.service) continue;
        text ??= formatSseEvent({ event: FLEET_EVENTS.drill, data: JSON.stringify(command) });
        if (write(s, text)) n++;
      }
      return n;
    },
    services() {
      const by = new Map<string, number>();
      for (const s of subs) if (s.service !== null) by.set(s.service, (by.get(s.service) ?? 0) + 1);
      return by;
    },
    heartbeat() {
      for (const s of subs) write(s, HEARTBEAT);
    },
    closeAll() {
      for (const s of subs) s.out.end();
      subs.clear();
    },
  };
}

import type { Db } from './database.ts';
import { keyFromRow } from '../key-rows.ts';
import type { DeliveredRequest, OnDemandCounts, RecentWindow, SuspicionInput, SuspicionRow, SuspicionsPart } from '../parts/suspicions.ts';
import type { SyncPart } from './sync-part.ts';

/** The suspicions part, answered synchronously. */
export type SuspicionStore = SyncPart<SuspicionsPart>;


type WindowRow = { key_id: number; source_id: number; start: number; end: number; calls: number; errors: string };
const toWindow = (r: WindowRow): RecentWindow => ({
  keyId: r.key_id, sourceId: r.source_id, start: r.start, end: r.end, calls: r.calls,
  errors: r.errors === '{}' ? {} : (JSON.parse(r.errors) as RecentWindow['errors']),
});

/** Creates the suspicions part over the collector's database (migration 030). */
export function createSuspicionStore(db: Db): SuspicionStore {
  const s = {
    // Only instances with an error in the lookback can be failing; the rest are not read
    // (the trigger runs every few seconds, and re-parsing every window was a sixth of ingest CPU).
    windows: db.prepare(`WITH erring AS (SELECT DISTINCT key_id, source_id FROM window_events WHERE end >= @since AND errors <> '{}')
      SELECT w.key_id, w.source_id, w.start, w.end, w.calls, w.errors FROM erring e
      JOIN window_events w ON w.key_id = e.key_id AND w.end >= @since AND w.source_id = e.source_id ORDER BY w.end`),
    // After the first pass the trigger reads each window once: rowids only grow on the one writer.
    windowsBetween: db.prepare('SELECT key_id, source_id, start, end, calls, errors FROM window_events WHERE id > ? AND id <= ? AND end >= ?'),
    lastWindowId: db.prepare('SELECT coalesce(max(id), 0) FROM window_events').pluck(),
    transitions: db.prepare('SELECT key_id, source_id, ts, to_state FROM transition_events WHERE ts >= ? ORDER BY ts, id'),
    covering: db.prepare('SELECT DISTINCT location FROM probe_events WHERE key_id = ? AND ts >= ? AND cold = 0 ORDER BY location').pluck(),
    latest: db.prepare('SELECT * FROM suspicions WHERE key_id = ? AND triggered_at <= ? ORDER BY triggered_at DESC, id DESC LIMIT 1'),
    inRange: db.prepare('SELECT * FROM suspicions WHERE triggered_at BETWEEN ? AND ? ORDER BY triggered_at, id'),
    requestedOf: db.prepare('SELECT count(*) FROM probe_requests WHERE location = ? AND created_at >= ?').pluck(),
    insertSuspicion: db.prepare('INSERT INTO suspicions (key_id, started_at, triggered_at, reason, locations) VALUES (?, ?, ?, ?, ?)'),
    insertRequest: db.prepare('INSERT INTO probe_requests (suspicion_id, key_id, location, created_at, not_before, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
    due: db.prepare(`SELECT r.id, r.suspicion_id, r.created_at, k.provider, k.endpoint, k.model, k.region
      FROM probe_requests r JOIN keys k ON k.id = r.key_id
      WHERE r.location = ? AND r.delivered_at IS NULL AND r.not_before <= ? AND r.expires_at > ? ORDER BY r.not_before, r.id LIMIT ?`),
    deliver: db.prepare('UPDATE probe_requests SET delivered_at = ? WHERE id = ?'),
    nextDue: db.prepare('SELECT min(not_before) FROM probe_requests WHERE location = ? AND delivered_at IS NULL AND expires_at > ?').pluck(),
    probesSince: db.prepare(`SELECT location, count(*) AS n,
      sum(CASE WHEN outcome IN ('slow', 'error') AND coalesce(error_class, '') NOT IN ('auth', 'bad_request', 'context_length') THEN 1 ELSE 0 END) AS failed
      FROM probe_events WHERE key_id = ? AND ts BETWEEN ? AND ? AND cold = 0 GROUP BY location`),
    requestCounts: db.prepare(`SELECT location, count(*) AS requested, count(delivered_at) AS delivered,
      sum(CASE WHEN delivered_at IS NULL AND expires_at > ? THEN 1 ELSE 0 END) AS pending,
      sum(CASE WHEN delivered_at IS NULL AND expires_at <= ? THEN 1 ELSE 0 END) AS expired
      FROM probe_requests WHERE created_at BETWEEN ? AND ? GROUP BY location`),
    served: db.prepare("SELECT location, count(*) AS n FROM probe_events WHERE ts BETWEEN ? AND ? AND trigger = 'suspicion' AND cold = 0 GROUP BY location"),
  };
  const toRow = (r: { id: number; key_id: number; started_at: number; triggered_at: number; reason: string; locations: string }): SuspicionRow => ({
    id: r.id, keyId: r.key_id, startedAt: r.started_at, triggeredAt: r.triggered_at, reason: r.reason, locations: JSON.parse(r.locations) as string[],
  });
  const open = db.transaction((input: SuspicionInput): SuspicionRow => {
    const locations = input.requests.map((r) => r.location);
    const id = Number(s.insertSuspicion.run(input.keyId, input.startedAt, input.triggeredAt, input.reason, JSON.stringify(locations)).lastInsertRowid);
    for (const r of input.requests) {
      for (const at of r.notBefore) s.insertRequest.run(id, input.keyId, r.location, input.triggeredAt, at, at + input.ttlMs);
    }
    return { id, keyId: input.keyId, startedAt: input.startedAt, triggeredAt: input.triggeredAt, reason: input.reason, locations };
  });
  const take = db.transaction((location: string, now: number, limit: number): DeliveredRequest[] => {
    const rows = s.due.all(location, now, now, limit) as { id: number; suspicion_id: number; created_at: number; provider: string; endpoint: string; model: string; region: string }[];
    for (const r of rows) s.deliver.run(now, r.id);
    return rows.map((r) => ({ id: r.id, key: keyFromRow(r), requested_at: r.created_at, suspicion_id: r.suspicion_id }));
  });

  return {
    windowsAfter(cursor, since) {
      const top = s.lastWindowId.get() as number;
      // Below the cursor the table was emptied (pruned) and rowids started again: read it all.
      const complete = cursor === null || top < cursor;
      const rows = (complete ? s.windows.all({ since }) : s.windowsBetween.all(cursor, top, since)) as WindowRow[];
      return { windows: rows.map(toWindow), cursor: top, complete };
    },
    transitionsSince(since) {
      return (s.transitions.all(since) as { key_id: number; source_id: number; ts: number; to_state: string }[]).map((r) => ({
        keyId: r.key_id, sourceId: r.source_id, ts: r.ts, to: r.to_state,
      }));
    },
    coveringLocations: (keyId, since) => s.covering.all(keyId, since) as string[],
    latest(keyId, at) {
      const r = s.latest.get(keyId, at) as Parameters<typeof toRow>[0] | undefined;
      return r ? toRow(r) : null;
    },
    latestPerKey(from, to) {
      const out = new Map<number, SuspicionRow>();
      for (const r of s.inRange.all(from, to) as Parameters<typeof toRow>[0][]) out.set(r.key_id, toRow(r));
      return out;
    },
    requestedOf: (location, since) => s.requestedOf.get(location, since) as number,
    open,
    request(keyId, location, at, ttlMs) {
      s.insertRequest.run(0, keyId, location, at, at, at + ttlMs);
      return Promise.resolve();
    },
    take: (location, now, limit) => take(location, now, limit),
    nextDue: (location, now) => (s.nextDue.get(location, now) as number | null) ?? null,
    probesSince(keyId, since, to) {
      return new Map((s.probesSince.all(keyId, since, to) as { location: string; n: number; failed: number }[]).map((r) => [r.location, { probes: r.n, failed: r.failed }]));
    },
    onDemand(from, to, now) {
      const out = new Map<string, OnDemandCounts>();
      const get = (l: string) => {
        let c = out.get(l);
        if (!c) out.set(l, (c = { requested: 0, delivered: 0, served: 0, pending: 0, expired: 0 }));
        return c;
      };
      for (const r of s.requestCounts.all(now, now, from, to) as { location: string; requested: number; delivered: number; pending: number; expired: number }[]) {
        Object.assign(get(r.location), { requested: r.requested, delivered: r.delivered, pending: r.pending, expired: r.expired });
      }
      for (const r of s.served.all(from, to) as { location: string; n: number }[]) get(r.location).served = r.n;
      return out;
    },
  };
}

import type { DeliveredRequest, OnDemandCounts, RecentWindow, SuspicionRow, SuspicionsPart } from '../parts/suspicions.ts';
import { keyFromRow } from '../key-rows.ts';
import { appendGlobal } from './change-log.ts';
import { inTransaction, type PgPool } from './pool.ts';

const SQL = {
  // Only instances with an error in the lookback can be failing (as on SQLite).
  windows: `WITH erring AS (SELECT DISTINCT key_id, source_id FROM window_events WHERE "end" >= $1 AND errors <> '{}')
    SELECT w.key_id, w.source_id, w.start, w."end", w.calls, w.errors FROM erring e
    JOIN window_events w ON w.key_id = e.key_id AND w."end" >= $1 AND w.source_id = e.source_id ORDER BY w."end"`,
  transitions: 'SELECT key_id, source_id, ts, to_state FROM transition_events WHERE ts >= $1 ORDER BY ts, id',
  covering: 'SELECT DISTINCT location FROM probe_events WHERE key_id = $1 AND ts >= $2 AND cold = 0',
  latest: 'SELECT * FROM suspicions WHERE key_id = $1 AND triggered_at <= $2 ORDER BY triggered_at DESC, id DESC LIMIT 1',
  inRange: 'SELECT * FROM suspicions WHERE triggered_at BETWEEN $1 AND $2 ORDER BY triggered_at, id',
  requestedOf: 'SELECT count(*) AS n FROM probe_requests WHERE location = $1 AND created_at >= $2',
  insertSuspicion: 'INSERT INTO suspicions (key_id, started_at, triggered_at, reason, locations) VALUES ($1, $2, $3, $4, $5) RETURNING id',
  insertRequests: `INSERT INTO probe_requests (suspicion_id, key_id, location, created_at, not_before, expires_at)
    SELECT $1, $2, l, $3, n, n + $4 FROM UNNEST($5::text[], $6::bigint[]) AS r(l, n)`,
  // Claimed and marked in one statement; SKIP LOCKED keeps two collectors serving one location from handing out a request twice.
  // A take is a global change for the verdicts (pending probes): one change-log row in the same statement when any was taken.
  take: `WITH due AS (
      SELECT id FROM probe_requests WHERE location = $1 AND delivered_at IS NULL AND not_before <= $2 AND expires_at > $2
      ORDER BY not_before, id LIMIT $3 FOR UPDATE SKIP LOCKED),
    taken AS (UPDATE probe_requests r SET delivered_at = $2 FROM due, keys k WHERE r.id = due.id AND k.id = r.key_id
      RETURNING r.id, r.suspicion_id, r.created_at, r.not_before, k.provider, k.endpoint, k.model, k.region),
    logged AS (INSERT INTO change_log (xid, kind) SELECT pg_current_xact_id(), 'suspicion' WHERE EXISTS (SELECT 1 FROM taken))
    SELECT * FROM taken`,
  nextDue: 'SELECT min(not_before) AS m FROM probe_requests WHERE location = $1 AND delivered_at IS NULL AND expires_at > $2',
  probesSince: `SELECT location, count(*) AS n,
    sum(CASE WHEN outcome IN ('slow', 'error') AND coalesce(error_class, '') NOT IN ('auth', 'bad_request', 'context_length') THEN 1 ELSE 0 END) AS failed
    FROM probe_events WHERE key_id = $1 AND ts BETWEEN $2 AND $3 AND cold = 0 GROUP BY location`,
  requestCounts: `SELECT location, count(*) AS requested, count(delivered_at) AS delivered,
    sum(CASE WHEN delivered_at IS NULL AND expires_at > $1 THEN 1 ELSE 0 END) AS pending,
    sum(CASE WHEN delivered_at IS NULL AND expires_at <= $1 THEN 1 ELSE 0 END) AS expired
    FROM probe_requests WHERE created_at BETWEEN $2 AND $3 GROUP BY location`,
  served: "SELECT location, count(*) AS n FROM probe_events WHERE ts BETWEEN $1 AND $2 AND trigger = 'suspicion' AND cold = 0 GROUP BY location",
};

type SRow = { id: number; key_id: number; started_at: number; triggered_at: number; reason: string; locations: string };
const toRow = (r: SRow): SuspicionRow => ({
  id: r.id, keyId: r.key_id, startedAt: r.started_at, triggeredAt: r.triggered_at, reason: r.reason, locations: JSON.parse(r.locations) as string[],
});

/** Probe on suspicion on PostgreSQL: requests queued by the leader, handed out by whichever collector a prober polls. */
export function createPostgresSuspicions(pool: PgPool): SuspicionsPart {
  const q = async <R extends object>(name: string, text: string, values: unknown[]) => (await pool.query<R>({ name, text, values })).rows;
  return {
    async windowsAfter(_cursor, since) {
      // Several collectors commit concurrently and sequence order is not commit order, so
      // "stored after the last read" cannot be told from ids: every pass reads it all.
      const rows = await q<{ key_id: number; source_id: number; start: number; end: number; calls: number; errors: string }>('susp_windows', SQL.windows, [since]);
      const windows = rows.map((r) => ({
        keyId: r.key_id, sourceId: r.source_id, start: r.start, end: r.end, calls: r.calls, errors: JSON.parse(r.errors) as RecentWindow['errors'],
      }));
      return { windows, cursor: null, complete: true };
    },
    async transitionsSince(since) {
      return (await q<{ key_id: number; source_id: number; ts: number; to_state: string }>('susp_transitions', SQL.transitions, [since])).map((r) => ({
        keyId: r.key_id, sourceId: r.source_id, ts: r.ts, to: r.to_state,
      }));
    },
    async coveringLocations(keyId, since) {
      // Sorted here, in binary order as SQLite's ORDER BY gives it.
      return (await q<{ location: string }>('susp_covering', SQL.covering, [keyId, since])).map((r) => r.location).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },
    async latest(keyId, at) {
      const r = (await q<SRow>('susp_latest', SQL.latest, [keyId, at]))[0];
      return r ? toRow(r) : null;
    },
    async latestPerKey(from, to) {
      const out = new Map<number, SuspicionRow>();
      for (const r of await q<SRow>('susp_in_range', SQL.inRange, [from, to])) out.set(r.key_id, toRow(r));
      return out;
    },
    async requestedOf(location, since) {
      return (await q<{ n: number }>('susp_requested_of', SQL.requestedOf, [location, since]))[0]!.n;
    },
    open(input) {
      return inTransaction(pool, async (c) => {
        const locations = input.requests.map((r) => r.location);
        const { rows } = await c.query<{ id: number }>({ name: 'susp_insert', text: SQL.insertSuspicion,
          values: [input.keyId, input.startedAt, input.triggeredAt, input.reason, JSON.stringify(locations)] });
        const id = rows[0]!.id;
        const ls: string[] = [];
        const ns: number[] = [];
        for (const r of input.requests) for (const at of r.notBefore) (ls.push(r.location), ns.push(at));
        if (ls.length > 0) await c.query({ name: 'susp_requests', text: SQL.insertRequests, values: [id, input.keyId, input.triggeredAt, input.ttlMs, ls, ns] });
        await appendGlobal(c, 'suspicion');
        return { id, keyId: input.keyId, startedAt: input.startedAt, triggeredAt: input.triggeredAt, reason: input.reason, locations };
      });
    },
    async request(keyId, location, at, ttlMs) {
      await q('susp_request', SQL.insertRequests, [0, keyId, at, ttlMs, [location], [at]]);
    },
    async take(location, now, limit) {
      const rows = await q<{ id: number; suspicion_id: number; created_at: number; not_before: number; provider: string; endpoint: string; model: string; region: string }>(
        'susp_take', SQL.take, [location, now, limit]);
      rows.sort((a, b) => a.not_before - b.not_before || a.id - b.id);
      return rows.map((r): DeliveredRequest => ({ id: r.id, key: keyFromRow(r), requested_at: r.created_at, suspicion_id: r.suspicion_id }));
    },
    async nextDue(location, now) {
      return (await q<{ m: number | null }>('susp_next_due', SQL.nextDue, [location, now]))[0]?.m ?? null;
    },
    async probesSince(keyId, since, to) {
      return new Map((await q<{ location: string; n: number; failed: number }>('susp_probes_since', SQL.probesSince, [keyId, since, to])).map((r) => [r.location, { probes: r.n, failed: r.failed }]));
    },
    async onDemand(from, to, now) {
      const out = new Map<string, OnDemandCounts>();
      const get = (l: string) => {
        let c = out.get(l);
        if (!c) out.set(l, (c = { requested: 0, delivered: 0, served: 0, pending: 0, expired: 0 }));
        return c;
      };
      for (const r of await q<{ location: string; requested: number; delivered: number; pending: number; expired: number }>('susp_request_counts', SQL.requestCounts, [now, from, to])) {
        Object.assign(get(r.location), { requested: r.requested, delivered: r.delivered, pending: r.pending, expired: r.expired });
      }
      for (const r of await q<{ location: string; n: number }>('susp_served', SQL.served, [from, to])) get(r.location).served = r.n;
      return out;
    },
  };
}

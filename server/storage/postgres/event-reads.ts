import type { BreakerStateName } from '@breakerbox/protocol';
import type { AnswerRow, EventsPart, ProbeEventRow, TransitionListed, TransitionRow } from '../parts/events.ts';
import { keyFromRow } from '../key-rows.ts';
import type { PgPool } from './pool.ts';

type KeyLabels = { provider: string; endpoint: string; model: string; region: string };

const SQL = {
  // The latest transition per key × source before a time: DISTINCT ON where SQLite relies on MAX() picking the row.
  beforeAll: `SELECT DISTINCT ON (key_id, source_id) key_id, source_id, ts, to_state FROM transition_events
    WHERE ts < $1 ORDER BY key_id, source_id, ts DESC, id DESC`,
  beforeKey: `SELECT DISTINCT ON (key_id, source_id) key_id, source_id, ts, to_state FROM transition_events
    WHERE key_id = $1 AND ts < $2 ORDER BY key_id, source_id, ts DESC, id DESC`,
  withinAll: 'SELECT key_id, source_id, ts, to_state FROM transition_events WHERE ts >= $1 AND ts < $2 ORDER BY key_id, source_id, ts, id',
  withinKey: 'SELECT key_id, source_id, ts, to_state FROM transition_events WHERE key_id = $1 AND ts >= $2 AND ts < $3 ORDER BY key_id, source_id, ts, id',
  beforeKeys: `SELECT DISTINCT ON (key_id, source_id) key_id, source_id, ts, to_state FROM transition_events
    WHERE key_id = ANY($1::bigint[]) AND ts < $2 ORDER BY key_id, source_id, ts DESC, id DESC`,
  withinKeys: 'SELECT key_id, source_id, ts, to_state FROM transition_events WHERE key_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3 ORDER BY key_id, source_id, ts, id',
  lastReport: 'SELECT MAX(minute) AS m FROM key_minute_sources WHERE key_id = $1 AND source_id = $2 AND minute < $3',
  keyTransitions: `SELECT t.ts, v.name AS service, s.instance, t.from_state AS "from", t.to_state AS "to", t.reason FROM transition_events t
    JOIN sources s ON s.id = t.source_id JOIN services v ON v.id = s.service_id
    WHERE t.key_id = $1 AND t.ts >= $2 AND t.ts < $3 ORDER BY t.ts DESC, t.id DESC LIMIT $4`,
  opens: `SELECT t.key_id, s.instance, COUNT(*)::int AS opens, k.provider, k.endpoint, k.model, k.region
    FROM transition_events t JOIN sources s ON s.id = t.source_id JOIN keys k ON k.id = t.key_id
    WHERE t.ts >= $1 AND t.ts <= $2 AND t.to_state = 'open' AND t.from_state = 'closed'
    GROUP BY t.key_id, t.source_id, s.instance, k.provider, k.endpoint, k.model, k.region`,
  latestConfig: `SELECT c.ts, c.settings, c.fallbacks, c.warnings, s.instance, v.name AS service FROM config_events c
    JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id WHERE c.key_id = $1 ORDER BY c.ts DESC, c.id DESC LIMIT 1`,
  hasFallbacks: 'SELECT DISTINCT ON (key_id) key_id, fallbacks FROM config_events ORDER BY key_id, ts DESC, id DESC',
  probes: `SELECT key_id, location, ts, outcome, error_class, status, connect_ms, ttfb_ms, total_ms, cold,
    upstream_request_id, error_type, error_code, message, answer_excerpt, model_served, system_fingerprint FROM probe_events
    WHERE ts >= $1 AND ts < $2 ORDER BY key_id, location COLLATE "C", ts DESC, id DESC`,
  lastWarm: `SELECT p.outcome, p.error_class, p.status, k.provider, k.endpoint, k.model, k.region FROM probe_events p
    JOIN keys k ON k.id = p.key_id WHERE p.key_id = $1 AND p.location = $2 AND p.ts <= $3 AND p.cold = 0 ORDER BY p.ts DESC, p.id DESC LIMIT 1`,
  warmOutcomes: `SELECT outcome FROM probe_events WHERE key_id = $1 AND location = $2 AND ts >= $3 AND ts < $4 AND ts <= $5 AND cold = 0
    ORDER BY ts DESC, id DESC`,
  served: `SELECT ts, 'probe' AS seen_in, location AS by, model_served, system_fingerprint, 0 AS kind, id FROM probe_events
    WHERE key_id = $1 AND ts >= $2 AND ts < $3 AND (model_served IS NOT NULL OR system_fingerprint IS NOT NULL)
    UNION ALL
    SELECT c.ts, 'call', v.name || '/' || s.instance, c.sample::json ->> 'model_served', NULL, 1, c.id FROM call_samples c
    JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
    WHERE c.key_id = $1 AND c.ts >= $2 AND c.ts < $3 AND c.sample::json ->> 'model_served' IS NOT NULL
    ORDER BY 1, kind, id`,
  servedAll: `SELECT key_id, ts, 'probe' AS seen_in, location AS by, model_served, system_fingerprint, 0 AS kind, id FROM probe_events
    WHERE ts >= $1 AND ts < $2 AND (model_served IS NOT NULL OR system_fingerprint IS NOT NULL)
    UNION ALL
    SELECT c.key_id, c.ts, 'call', v.name || '/' || s.instance, c.sample::json ->> 'model_served', NULL, 1, c.id FROM call_samples c
    JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
    WHERE c.ts >= $1 AND c.ts < $2 AND c.sample::json ->> 'model_served' IS NOT NULL
    ORDER BY 1, 2, kind, id`,
  // The last named model: the later of the probes' and the call samples' last (same order as `served`).
  beforeModel: `SELECT m FROM (
      (SELECT ts, 0 AS kind, id, model_served AS m FROM probe_events
        WHERE key_id = $1 AND ts >= $3 AND ts < $2 AND model_served IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1)
      UNION ALL
      (SELECT ts, 1 AS kind, id, sample::json ->> 'model_served' AS m FROM call_samples
        WHERE key_id = $1 AND ts >= $3 AND ts < $2 AND sample::json ->> 'model_served' IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1)
    ) last ORDER BY ts DESC, kind DESC, id DESC LIMIT 1`,
  beforeFingerprint: `SELECT system_fingerprint FROM probe_events
    WHERE key_id = $1 AND ts >= $3 AND ts < $2 AND system_fingerprint IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1`,
  answerCounts: `SELECT location, COUNT(*)::int AS probes, SUM(CASE WHEN outcome = 'wrong_answer' THEN 1 ELSE 0 END)::int AS wrong FROM probe_events
    WHERE key_id = $1 AND ts >= $2 AND ts < $3 AND cold = 0 GROUP BY location ORDER BY location COLLATE "C"`,
  answerLatest: `SELECT DISTINCT ON (location) location, ts, message, answer_excerpt FROM probe_events
    WHERE key_id = $1 AND ts >= $2 AND ts < $3 AND cold = 0 AND outcome = 'wrong_answer' ORDER BY location, ts DESC, id DESC`,
  failureClasses: `SELECT location, COUNT(*)::int AS failed, SUM(CASE WHEN error_class IN ('network', 'timeout') THEN 1 ELSE 0 END)::int AS network
    FROM probe_events WHERE ts >= $1 AND ts < $2 AND outcome <> 'ok' AND cold = 0 GROUP BY location`,
};

type TRow = { key_id: number; source_id: number; ts: number; to_state: BreakerStateName };
const transitionRow = (r: TRow): TransitionRow => ({ keyId: r.key_id, sourceId: r.source_id, ts: r.ts, toState: r.to_state });

/** Reads of the raw events on PostgreSQL; the same answers as the SQLite engine's. */
export function createPostgresEventReads(pool: PgPool): EventsPart {
  const q = async <R extends object>(name: string, text: string, values: unknown[]) => (await pool.query<R>({ name, text, values })).rows;
  return {
    async stateBefore(before, keyId) {
      const rows = keyId === undefined ? await q<TRow>('ev_before_all', SQL.beforeAll, [before])
        : typeof keyId === 'number' ? await q<TRow>('ev_before_key', SQL.beforeKey, [keyId, before]) : await q<TRow>('ev_before_keys', SQL.beforeKeys, [keyId, before]);
      return rows.map(transitionRow);
    },
    async transitionsIn(from, to, keyId) {
      const rows = keyId === undefined ? await q<TRow>('ev_within_all', SQL.withinAll, [from, to])
        : typeof keyId === 'number' ? await q<TRow>('ev_within_key', SQL.withinKey, [keyId, from, to]) : await q<TRow>('ev_within_keys', SQL.withinKeys, [keyId, from, to]);
      return rows.map(transitionRow);
    },
    async lastReportMinute(keyId, sourceId, before) {
      return (await q<{ m: number | null }>('ev_last_report', SQL.lastReport, [keyId, sourceId, before]))[0]?.m ?? null;
    },
    async keyTransitions(keyId, from, to, limit) {
      return q<TransitionListed>('ev_key_transitions', SQL.keyTransitions, [keyId, from, to, limit]);
    },
    async opensPerInstance(from, to) {
      return (await q<KeyLabels & { key_id: number; instance: string; opens: number }>('ev_opens', SQL.opens, [from, to])).map((r) => ({
        keyId: r.key_id, key: keyFromRow(r), instance: r.instance, opens: r.opens,
      }));
    },
    async latestConfig(keyId) {
      const row = (await q<{ ts: number; settings: string; fallbacks: string; warnings: string; instance: string; service: string }>('ev_latest_config', SQL.latestConfig, [keyId]))[0];
      if (!row) return null;
      return { ts: row.ts, service: row.service, instance: row.instance, settings: JSON.parse(row.settings), fallbacks: JSON.parse(row.fallbacks), warnings: JSON.parse(row.warnings) };
    },
    async hasFallbacks() {
      return new Map((await q<{ key_id: number; fallbacks: string }>('ev_has_fallbacks', SQL.hasFallbacks, [])).map((r) => [r.key_id, r.fallbacks !== '[]']));
    },
    async probeEvents(from, to) {
      return (await q<{ key_id: number; location: string; ts: number; outcome: ProbeEventRow['outcome']; error_class: string | null; status: number | null;
        connect_ms: number | null; ttfb_ms: number | null; total_ms: number; cold: number;
        upstream_request_id: string | null; error_type: string | null; error_code: string | null; message: string | null;
        answer_excerpt: string | null; model_served: string | null; system_fingerprint: string | null }>('ev_probes', SQL.probes, [from, to])).map((r) => ({
        keyId: r.key_id, location: r.location, ts: r.ts, outcome: r.outcome, errorClass: r.error_class, status: r.status,
        connectMs: r.connect_ms, ttfbMs: r.ttfb_ms, totalMs: r.total_ms, cold: r.cold === 1,
        upstreamRequestId: r.upstream_request_id, errorType: r.error_type, errorCode: r.error_code, message: r.message,
        answerExcerpt: r.answer_excerpt, modelServed: r.model_served, systemFingerprint: r.system_fingerprint,
      }));
    },
    async lastWarmProbe(keyId, location, at) {
      const r = (await q<KeyLabels & { outcome: string; error_class: string | null; status: number | null }>('ev_last_warm', SQL.lastWarm, [keyId, location, at]))[0];
      return r ? { key: keyFromRow(r), outcome: r.outcome, errorClass: r.error_class, status: r.status } : null;
    },
    async warmOutcomes(keyId, location, from, to, at) {
      return (await q<{ outcome: string }>('ev_warm_outcomes', SQL.warmOutcomes, [keyId, location, from, to, at])).map((r) => r.outcome);
    },
    async probeFailureClasses(from, to) {
      return new Map((await q<{ location: string; failed: number; network: number }>('ev_failure_classes', SQL.failureClasses, [from, to])).map((r) => [r.location, { failed: r.failed, network: r.network }]));
    },
    async servedBefore(keyId, before, since) {
      const [model, fingerprint] = await Promise.all([
        q<{ m: string }>('ev_served_before_model', SQL.beforeModel, [keyId, before, since]),
        q<{ system_fingerprint: string }>('ev_served_before_fp', SQL.beforeFingerprint, [keyId, before, since]),
      ]);
      return { modelServed: model[0]?.m ?? null, systemFingerprint: fingerprint[0]?.system_fingerprint ?? null };
    },
    async answerRows(keyId, from, to) {
      const [counts, latest] = await Promise.all([
        q<{ location: string; probes: number; wrong: number }>('ev_answer_counts', SQL.answerCounts, [keyId, from, to]),
        q<{ location: string; ts: number; message: string | null; answer_excerpt: string | null }>('ev_answer_latest', SQL.answerLatest, [keyId, from, to]),
      ]);
      const last = new Map(latest.map((r) => [r.location, { ts: Number(r.ts), expected: r.message, excerpt: r.answer_excerpt }]));
      return counts.map((r): AnswerRow => ({ location: r.location, probes: r.probes, wrong: r.wrong, latest: last.get(r.location) ?? null }));
    },
    async servedSightingsIn(from, to) {
      return (await q<{ key_id: number; ts: number; seen_in: 'probe' | 'call'; by: string; model_served: string | null; system_fingerprint: string | null }>('ev_served_all', SQL.servedAll, [from, to])).map((r) => ({
        keyId: r.key_id, ts: r.ts, seenIn: r.seen_in, by: r.by, modelServed: r.model_served, systemFingerprint: r.system_fingerprint,
      }));
    },
    async servedSightings(keyId, from, to) {
      return (await q<{ ts: number; seen_in: 'probe' | 'call'; by: string; model_served: string | null; system_fingerprint: string | null }>('ev_served', SQL.served, [keyId, from, to])).map((r) => ({
        ts: r.ts, seenIn: r.seen_in, by: r.by, modelServed: r.model_served, systemFingerprint: r.system_fingerprint,
      }));
    },
  };
}

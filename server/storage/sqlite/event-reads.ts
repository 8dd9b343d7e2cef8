import type { BreakerStateName } from '@breakerbox/protocol';
import type { Db } from './database.ts';
import type { AnswerRow, EventsPart, ProbeEventRow, TransitionListed, TransitionRow } from '../parts/events.ts';
import type { SyncPart } from './sync-part.ts';
import { keyFromRow } from '../key-rows.ts';

type KeyLabels = { provider: string; endpoint: string; model: string; region: string };

/** Creates the raw-event reads; every statement is prepared once. */
export function createEventReads(db: Db): SyncPart<EventsPart> {
  const s = {
    beforeAll: db.prepare('SELECT key_id, source_id, MAX(ts), to_state FROM transition_events WHERE ts < ? GROUP BY key_id, source_id').raw(),
    beforeKey: db.prepare('SELECT key_id, source_id, MAX(ts), to_state FROM transition_events WHERE key_id = ? AND ts < ? GROUP BY key_id, source_id').raw(),
    withinAll: db.prepare('SELECT key_id, source_id, ts, to_state FROM transition_events WHERE ts >= ? AND ts < ? ORDER BY key_id, source_id, ts, id').raw(),
    withinKey: db.prepare('SELECT key_id, source_id, ts, to_state FROM transition_events WHERE key_id = ? AND ts >= ? AND ts < ? ORDER BY key_id, source_id, ts, id').raw(),
    beforeKeys: db.prepare('SELECT key_id, source_id, MAX(ts), to_state FROM transition_events WHERE key_id IN (SELECT value FROM json_each(?)) AND ts < ? GROUP BY key_id, source_id').raw(),
    withinKeys: db.prepare(`SELECT key_id, source_id, ts, to_state FROM transition_events WHERE key_id IN (SELECT value FROM json_each(?)) AND ts >= ? AND ts < ?
      ORDER BY key_id, source_id, ts, id`).raw(),
    lastReport: db.prepare('SELECT MAX(minute) FROM key_minute_sources WHERE key_id = ? AND source_id = ? AND minute < ?').pluck(),
    keyTransitions: db.prepare(`SELECT t.ts, v.name AS service, s.instance, t.from_state AS "from", t.to_state AS "to", t.reason FROM transition_events t
      JOIN sources s ON s.id = t.source_id JOIN services v ON v.id = s.service_id
      WHERE t.key_id = ? AND t.ts >= ? AND t.ts < ? ORDER BY t.ts DESC, t.id DESC LIMIT ?`),
    opens: db.prepare(`SELECT t.key_id AS keyId, s.instance, COUNT(*) AS opens, k.provider, k.endpoint, k.model, k.region
      FROM transition_events t JOIN sources s ON s.id = t.source_id JOIN keys k ON k.id = t.key_id
      WHERE t.ts >= ? AND t.ts <= ? AND t.to_state = 'open' AND t.from_state = 'closed' GROUP BY t.key_id, t.source_id`),
    latestConfig: db.prepare(`SELECT c.ts, c.settings, c.fallbacks, c.warnings, s.instance, v.name AS service FROM config_events c
      JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id WHERE c.key_id = ? ORDER BY c.ts DESC, c.id DESC LIMIT 1`),
    // SQLite returns the bare columns of the row holding MAX(ts): the latest config per key.
    hasFallbacks: db.prepare('SELECT key_id, fallbacks, MAX(ts) FROM config_events GROUP BY key_id').raw(),
    probes: db.prepare(`SELECT key_id, location, ts, outcome, error_class, status, connect_ms, ttfb_ms, total_ms, cold,
      upstream_request_id, error_type, error_code, message, answer_excerpt, model_served, system_fingerprint FROM probe_events
      WHERE ts >= ? AND ts < ? ORDER BY key_id, location, ts DESC, id DESC`).raw(),
    lastWarm: db.prepare(`SELECT p.outcome, p.error_class AS errorClass, p.status, k.provider, k.endpoint, k.model, k.region FROM probe_events p
      JOIN keys k ON k.id = p.key_id WHERE p.key_id = ? AND p.location = ? AND p.ts <= ? AND p.cold = 0 ORDER BY p.ts DESC, p.id DESC LIMIT 1`),
    warmOutcomes: db.prepare('SELECT outcome FROM probe_events WHERE key_id = ? AND location = ? AND ts >= ? AND ts < ? AND ts <= ? AND cold = 0 ORDER BY ts DESC, id DESC').pluck(),
    served: db.prepare(`SELECT ts, 'probe', location, model_served, system_fingerprint, 0 AS kind, id FROM probe_events
      WHERE key_id = @key AND ts >= @from AND ts < @to AND (model_served IS NOT NULL OR system_fingerprint IS NOT NULL)
      UNION ALL
      SELECT c.ts, 'call', v.name || '/' || s.instance, json_extract(c.sample, '$.model_served'), NULL, 1 AS kind, c.id FROM call_samples c
      JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
      WHERE c.key_id = @key AND c.ts >= @from AND c.ts < @to AND json_extract(c.sample, '$.model_served') IS NOT NULL
      ORDER BY 1, kind, id`).raw(),
    servedAll: db.prepare(`SELECT key_id, ts, 'probe', location, model_served, system_fingerprint, 0 AS kind, id FROM probe_events
      WHERE ts >= @from AND ts < @to AND (model_served IS NOT NULL OR system_fingerprint IS NOT NULL)
      UNION ALL
      SELECT c.key_id, c.ts, 'call', v.name || '/' || s.instance, json_extract(c.sample, '$.model_served'), NULL, 1 AS kind, c.id FROM call_samples c
      JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
      WHERE c.ts >= @from AND c.ts < @to AND json_extract(c.sample, '$.model_served') IS NOT NULL
      ORDER BY 1, 2, kind, id`).raw(),
    // The last named model: the later of the probes' and the call samples' last (same order as `served`).
    beforeModel: db.prepare(`SELECT m FROM (
        SELECT * FROM (SELECT ts, 0 AS kind, id, model_served AS m FROM probe_events
          WHERE key_id = @key AND ts >= @since AND ts < @before AND model_served IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1)
        UNION ALL
        SELECT * FROM (SELECT ts, 1 AS kind, id, json_extract(sample, '$.model_served') AS m FROM call_samples
          WHERE key_id = @key AND ts >= @since AND ts < @before AND json_extract(sample, '$.model_served') IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1)
      ) ORDER BY ts DESC, kind DESC, id DESC LIMIT 1`).pluck(),
    beforeFingerprint: db.prepare(`SELECT system_fingerprint FROM probe_events
      WHERE key_id = @key AND ts >= @since AND ts < @before AND system_fingerprint IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1`).pluck(),
    answerCounts: db.prepare(`SELECT location, COUNT(*), SUM(CASE WHEN outcome = 'wrong_answer' THEN 1 ELSE 0 END) FROM probe_events
      WHERE key_id = ? AND ts >= ? AND ts < ? AND cold = 0 GROUP BY location ORDER BY location`).raw(),
    // SQLite returns the bare columns of the row holding MAX(ts): the latest wrong answer per location.
    answerLatest: db.prepare(`SELECT location, MAX(ts), message, answer_excerpt FROM probe_events
      WHERE key_id = ? AND ts >= ? AND ts < ? AND cold = 0 AND outcome = 'wrong_answer' GROUP BY location`).raw(),
    failureClasses: db.prepare(`SELECT location, COUNT(*), SUM(CASE WHEN error_class IN ('network', 'timeout') THEN 1 ELSE 0 END) FROM probe_events
      WHERE ts >= ? AND ts < ? AND outcome <> 'ok' AND cold = 0 GROUP BY location`).raw(),
  };
  const transitionRow = ([keyId, sourceId, ts, toState]: [number, number, number, BreakerStateName]): TransitionRow => ({ keyId, sourceId, ts, toState });
  return {
    stateBefore(before, keyId) {
      const rows = (keyId === undefined ? s.beforeAll.all(before)
        : typeof keyId === 'number' ? s.beforeKey.all(keyId, before) : s.beforeKeys.all(JSON.stringify(keyId), before)) as [number, number, number, BreakerStateName][];
      return rows.map(transitionRow);
    },
    transitionsIn(from, to, keyId) {
      const rows = (keyId === undefined ? s.withinAll.all(from, to)
        : typeof keyId === 'number' ? s.withinKey.all(keyId, from, to) : s.withinKeys.all(JSON.stringify(keyId), from, to)) as [number, number, number, BreakerStateName][];
      return rows.map(transitionRow);
    },
    lastReportMinute: (keyId, sourceId, before) => (s.lastReport.get(keyId, sourceId, before) as number | null) ?? null,
    keyTransitions: (keyId, from, to, limit) => s.keyTransitions.all(keyId, from, to, limit) as TransitionListed[],
    opensPerInstance: (from, to) =>
      (s.opens.all(from, to) as (KeyLabels & { keyId: number; instance: string; opens: number })[]).map((r) => ({ keyId: r.keyId, key: keyFromRow(r), instance: r.instance, opens: r.opens })),
    latestConfig(keyId) {
      const row = s.latestConfig.get(keyId) as { ts: number; settings: string; fallbacks: string; warnings: string; instance: string; service: string } | undefined;
      if (!row) return null;
      return { ts: row.ts, service: row.service, instance: row.instance, settings: JSON.parse(row.settings), fallbacks: JSON.parse(row.fallbacks), warnings: JSON.parse(row.warnings) };
    },
    hasFallbacks: () => new Map((s.hasFallbacks.all() as [number, string][]).map(([key, fallbacks]) => [key, fallbacks !== '[]'])),
    probeEvents(from, to) {
      return (s.probes.all(from, to) as (string | number | null)[][]).map(([keyId, location, ts, outcome, errorClass, status, connect, ttfb, total, cold, requestId, errorType, errorCode, message, excerpt, modelServed, fingerprint]): ProbeEventRow => ({
        keyId: keyId as number, location: location as string, ts: ts as number, outcome: outcome as ProbeEventRow['outcome'],
        errorClass: errorClass as string | null, status: status as number | null, connectMs: connect as number | null,
        ttfbMs: ttfb as number | null, totalMs: total as number, cold: cold === 1,
        upstreamRequestId: requestId as string | null, errorType: errorType as string | null, errorCode: errorCode as string | null, message: message as string | null,
        answerExcerpt: excerpt as string | null, modelServed: modelServed as string | null, systemFingerprint: fingerprint as string | null,
      }));
    },
    lastWarmProbe(keyId, location, at) {
      const r = s.lastWarm.get(keyId, location, at) as (KeyLabels & { outcome: string; errorClass: string | null; status: number | null }) | undefined;
      return r ? { key: keyFromRow(r), outcome: r.outcome, errorClass: r.errorClass, status: r.status } : null;
    },
    warmOutcomes: (keyId, location, from, to, at) => s.warmOutcomes.all(keyId, location, from, to, at) as string[],
    probeFailureClasses: (from, to) =>
      new Map((s.failureClasses.all(from, to) as [string, number, number][]).map(([location, failed, network]) => [location, { failed, network }])),
    servedBefore(keyId, before, since) {
      const p = { key: keyId, before, since };
      return { modelServed: (s.beforeModel.get(p) as string | undefined) ?? null, systemFingerprint: (s.beforeFingerprint.get(p) as string | undefined) ?? null };
    },
    answerRows(keyId, from, to) {
      const latest = new Map((s.answerLatest.all(keyId, from, to) as [string, number, string | null, string | null][]).map(([l, ts, expected, excerpt]) => [l, { ts, expected, excerpt }]));
      return (s.answerCounts.all(keyId, from, to) as [string, number, number][]).map(([location, probes, wrong]): AnswerRow => ({ location, probes, wrong, latest: latest.get(location) ?? null }));
    },
    servedSightingsIn: (from, to) =>
      (s.servedAll.all({ from, to }) as [number, number, 'probe' | 'call', string, string | null, string | null][]).map(([keyId, ts, seenIn, by, modelServed, systemFingerprint]) => ({ keyId, ts, seenIn, by, modelServed, systemFingerprint })),
    servedSightings: (keyId, from, to) =>
      (s.served.all({ key: keyId, from, to }) as [number, 'probe' | 'call', string, string | null, string | null][]).map(([ts, seenIn, by, modelServed, systemFingerprint]) => ({ ts, seenIn, by, modelServed, systemFingerprint })),
  };
}

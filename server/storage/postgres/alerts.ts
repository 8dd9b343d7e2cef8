import { toAlert, type AlertRow } from '../alert-rows.ts';
import type { AlertsPart } from '../parts/alerts.ts';
import { inTransaction, type PgPool } from './pool.ts';

const SELECT = 'SELECT a.*, k.provider, k.endpoint, k.model, k.region FROM alerts a LEFT JOIN keys k ON k.id = a.key_id';

const SQL = {
  unresolved: `${SELECT} WHERE a.state <> 'resolved'`,
  byState: `${SELECT} WHERE a.state = $1 AND (a.state <> 'resolved' OR a.resolved_at >= $2) ORDER BY a.started_at DESC, a.id DESC LIMIT $3`,
  recent: `${SELECT} WHERE a.state <> 'resolved' OR a.resolved_at >= $1 ORDER BY a.started_at DESC, a.id DESC LIMIT $2`,
  byFingerprint: `${SELECT} WHERE a.fingerprint = $1 ORDER BY a.started_at DESC, a.id DESC LIMIT $2`,
  toNotify: `${SELECT} WHERE a.state = 'firing' OR (a.state = 'resolved' AND a.resolved_at >= $1)`,
  insert: `INSERT INTO alerts (fingerprint, rule, key_id, location, operation, state, severity, summary, value, verdict, hint,
    started_at, fired_at, resolved_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
  update: `UPDATE alerts SET state = $2, severity = $3, summary = $4, value = $5, verdict = $6, hint = $7,
    fired_at = $8, resolved_at = $9, updated_at = $10 WHERE id = $1`,
  remove: 'DELETE FROM alerts WHERE id = $1',
  setGroup: 'UPDATE alerts SET group_key = $1 WHERE id = $2',
  counts: `SELECT state, severity, COUNT(*)::int AS n FROM alerts WHERE state <> 'resolved' GROUP BY state, severity`,
};

/**
 * Alert rows on PostgreSQL. Only the collector holding the leader lease evaluates and so
 * writes here; the partial unique index (one unresolved alert per fingerprint, migration
 * 002) still refuses a second unresolved row should two ever overlap.
 */
export function createPostgresAlerts(pool: PgPool): AlertsPart {
  const rows = async (name: string, text: string, values: unknown[]) => (await pool.query<AlertRow>({ name, text, values })).rows;
  return {
    async unresolved() {
      return new Map((await rows('alerts_unresolved', SQL.unresolved, [])).map((r) => [r.fingerprint, toAlert(r)]));
    },
    async list({ state, since, limit, fingerprint }) {
      const found = fingerprint !== undefined
        ? (await rows('alerts_by_fingerprint', SQL.byFingerprint, [fingerprint, limit])).filter((r) => state === undefined || r.state === state)
        : state
          ? await rows('alerts_by_state', SQL.byState, [state, since, limit])
          : await rows('alerts_recent', SQL.recent, [since, limit]);
      return found.map(toAlert);
    },
    async toNotify(since) {
      return (await rows('alerts_to_notify', SQL.toNotify, [since])).map(toAlert);
    },
    apply(changes) {
      return inTransaction(pool, async (c) => {
        const ids: number[] = [];
        for (const ch of changes) {
          if (ch.op === 'insert') {
            const a = ch.alert;
            const { rows: r } = await c.query<{ id: number }>({
              name: 'alerts_insert', text: SQL.insert,
              values: [a.fingerprint, a.rule, a.keyId, a.location, a.operation, a.state, a.severity, a.summary, a.value, a.verdict, a.hint,
                a.started_at, a.fired_at, a.resolved_at, a.updated_at],
            });
            ids.push(r[0]!.id);
          } else if (ch.op === 'update') {
            const f = ch.fields;
            await c.query({ name: 'alerts_update', text: SQL.update,
              values: [ch.id, f.state, f.severity, f.summary, f.value, f.verdict, f.hint, f.fired_at, f.resolved_at, f.updated_at] });
          } else if (ch.op === 'remove') {
            await c.query({ name: 'alerts_remove', text: SQL.remove, values: [ch.id] });
          } else {
            await c.query({ name: 'alerts_group', text: SQL.setGroup, values: [ch.groupKey, ch.id] });
          }
        }
        return ids;
      });
    },
    async countsByState() {
      return (await pool.query<{ state: string; severity: string; n: number }>({ name: 'alerts_counts', text: SQL.counts })).rows;
    },
  };
}

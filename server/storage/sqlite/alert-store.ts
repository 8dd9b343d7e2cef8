import { toAlert, type AlertRow } from '../alert-rows.ts';
import type { Db } from './database.ts';
import type { AlertsPart } from '../parts/alerts.ts';
import type { SyncPart } from './sync-part.ts';

const SELECT = `SELECT a.*, k.provider, k.endpoint, k.model, k.region FROM alerts a LEFT JOIN keys k ON k.id = a.key_id`;

/** Creates the alerts part over the SQLite connection. */
export function createAlertStore(db: Db): SyncPart<AlertsPart> {
  const s = {
    unresolved: db.prepare(`${SELECT} WHERE a.state <> 'resolved'`),
    byState: db.prepare(`${SELECT} WHERE a.state = ? AND (a.state <> 'resolved' OR a.resolved_at >= ?) ORDER BY a.started_at DESC, a.id DESC LIMIT ?`),
    recent: db.prepare(`${SELECT} WHERE a.state <> 'resolved' OR a.resolved_at >= ? ORDER BY a.started_at DESC, a.id DESC LIMIT ?`),
    byFingerprint: db.prepare(`${SELECT} WHERE a.fingerprint = ? ORDER BY a.started_at DESC, a.id DESC LIMIT ?`),
    toNotify: db.prepare(`${SELECT} WHERE a.state = 'firing' OR (a.state = 'resolved' AND a.resolved_at >= ?)`),
    insert: db.prepare(`INSERT INTO alerts (fingerprint, rule, key_id, location, operation, state, severity, summary, value, verdict, hint,
      started_at, fired_at, resolved_at, updated_at) VALUES (@fingerprint, @rule, @keyId, @location, @operation, @state, @severity, @summary,
      @value, @verdict, @hint, @started_at, @fired_at, @resolved_at, @updated_at)`),
    update: db.prepare(`UPDATE alerts SET state = @state, severity = @severity, summary = @summary, value = @value, verdict = @verdict, hint = @hint,
      fired_at = @fired_at, resolved_at = @resolved_at, updated_at = @updated_at WHERE id = @id`),
    remove: db.prepare('DELETE FROM alerts WHERE id = ?'),
    setGroup: db.prepare('UPDATE alerts SET group_key = ? WHERE id = ?'),
    counts: db.prepare(`SELECT state, severity, COUNT(*) AS n FROM alerts WHERE state <> 'resolved' GROUP BY state, severity`),
  };
  const apply = db.transaction((changes: Parameters<AlertsPart['apply']>[0]): number[] => {
    const ids: number[] = [];
    for (const c of changes) {
      if (c.op === 'insert') ids.push(Number(s.insert.run(c.alert).lastInsertRowid));
      else if (c.op === 'update') s.update.run({ id: c.id, ...c.fields });
      else if (c.op === 'remove') s.remove.run(c.id);
      else s.setGroup.run(c.groupKey, c.id);
    }
    return ids;
  });
  return {
    unresolved: () => new Map((s.unresolved.all() as AlertRow[]).map((r) => [r.fingerprint, toAlert(r)])),
    list({ state, since, limit, fingerprint }) {
      const rows = fingerprint !== undefined
        ? (s.byFingerprint.all(fingerprint, limit) as AlertRow[]).filter((r) => state === undefined || r.state === state)
        : state
          ? (s.byState.all(state, since, limit) as AlertRow[])
          : (s.recent.all(since, limit) as AlertRow[]);
      return rows.map(toAlert);
    },
    toNotify: (since) => (s.toNotify.all(since) as AlertRow[]).map(toAlert),
    apply: (changes) => apply.immediate(changes),
    countsByState: () => s.counts.all() as { state: string; severity: string; n: number }[],
  };
}

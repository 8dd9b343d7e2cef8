import type { Db } from '../storage/database.ts';
import { keyFromRow } from '../storage/telemetry-store.ts';
import type { Hint, Verdict } from '../verdicts/types.ts';
import type { AlertState, AlertView, RuleName, Severity } from './types.ts';

/** An alert row with its key resolved. */
export type StoredAlert = Omit<AlertView, 'silenced' | 'silenced_by'> & { keyId: number | null };

/** What each notifier was last told about an alert. */
export interface NotifyState {
  last_event: 'firing' | 'repeat' | 'resolved' | null;
  last_sent_at: number | null;
  last_attempt_at: number;
  last_status: 'ok' | 'failed';
}

/** Events of a grouped notification: a first page, a change of its alerts, a reminder, the end. */
export type GroupEvent = 'firing' | 'update' | 'repeat' | 'resolved';

/** Alert persistence: lifecycle rows and per-notifier notification state. */
export interface AlertStore {
  /** Pending and firing alerts by fingerprint. */
  unresolved(): Map<string, StoredAlert>;
  /** Alerts for the API: a state, or unresolved plus resolved since `since`. */
  list(options: { state?: AlertState; since: number; limit: number; fingerprint?: string }): StoredAlert[];
  /** Firing alerts, and alerts resolved since `since` (they may still owe a resolve notice). */
  toNotify(since: number): StoredAlert[];
  insert(a: Omit<StoredAlert, 'id' | 'key' | 'group_key'>): number;
  /** Records the notification group an alert is in now. */
  setGroup(id: number, groupKey: string): void;
  /** What a notifier was last told about a group. */
  groupState(groupKey: string, notifier: string): (Omit<NotifyState, 'last_event'> & { last_event: GroupEvent | null; digest: string | null }) | undefined;
  recordGroupNotify(groupKey: string, notifier: string, event: GroupEvent, ok: boolean, at: number, digest: string): void;
  update(id: number, fields: Pick<StoredAlert, 'state' | 'summary' | 'value' | 'verdict' | 'hint' | 'fired_at' | 'resolved_at' | 'updated_at' | 'severity'>): void;
  remove(id: number): void;
  notifyState(alertId: number, notifier: string): NotifyState | undefined;
  recordNotify(alertId: number, notifier: string, event: NotifyState['last_event'], ok: boolean, at: number): void;
  prune(before: number): void;
}

type Row = {
  id: number; fingerprint: string; rule: RuleName; key_id: number | null; location: string | null; operation: string | null;
  state: AlertState; severity: Severity; summary: string; value: number | null; verdict: Verdict | null; hint: Hint | null;
  started_at: number; fired_at: number | null; resolved_at: number | null; updated_at: number; group_key: string | null;
  provider: string | null; endpoint: string | null; model: string | null; region: string | null;
};

const SELECT = `SELECT a.*, k.provider, k.endpoint, k.model, k.region FROM alerts a LEFT JOIN keys k ON k.id = a.key_id`;

function toAlert(r: Row): StoredAlert {
  return {
    id: r.id, fingerprint: r.fingerprint, rule: r.rule, keyId: r.key_id,
    key: r.provider === null ? null : keyFromRow({ provider: r.provider, endpoint: r.endpoint!, model: r.model!, region: r.region! }),
    location: r.location, operation: r.operation, state: r.state, severity: r.severity, summary: r.summary, value: r.value,
    started_at: r.started_at, fired_at: r.fired_at, resolved_at: r.resolved_at, updated_at: r.updated_at, verdict: r.verdict, hint: r.hint,
    group_key: r.group_key,
  };
}

/** Creates the alert store. */
export function createAlertStore(db: Db): AlertStore {
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
    groupGet: db.prepare('SELECT last_event, last_sent_at, last_attempt_at, last_status, digest FROM incident_notifications WHERE group_key = ? AND notifier = ?'),
    groupOk: db.prepare(`INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
      VALUES (?, ?, ?, ?, ?, 'ok', ?) ON CONFLICT (group_key, notifier) DO UPDATE SET last_event = excluded.last_event,
      last_sent_at = excluded.last_sent_at, last_attempt_at = excluded.last_attempt_at, last_status = 'ok', digest = excluded.digest`),
    groupFailed: db.prepare(`INSERT INTO incident_notifications (group_key, notifier, last_event, last_sent_at, last_attempt_at, last_status, digest)
      VALUES (?, ?, NULL, NULL, ?, 'failed', NULL) ON CONFLICT (group_key, notifier) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_status = 'failed'`),
    pruneGroups: db.prepare(`DELETE FROM incident_notifications WHERE last_event = 'resolved' AND last_attempt_at < ?`),
    notifyGet: db.prepare('SELECT last_event, last_sent_at, last_attempt_at, last_status FROM alert_notifications WHERE alert_id = ? AND notifier = ?'),
    notifyOk: db.prepare(`INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
      VALUES (?, ?, ?, ?, ?, 'ok') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_event = excluded.last_event,
      last_sent_at = excluded.last_sent_at, last_attempt_at = excluded.last_attempt_at, last_status = 'ok'`),
    notifyFailed: db.prepare(`INSERT INTO alert_notifications (alert_id, notifier, last_event, last_sent_at, last_attempt_at, last_status)
      VALUES (?, ?, NULL, NULL, ?, 'failed') ON CONFLICT (alert_id, notifier) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_status = 'failed'`),
    pruneNotify: db.prepare(`DELETE FROM alert_notifications WHERE alert_id IN (SELECT id FROM alerts WHERE state = 'resolved' AND resolved_at < ?)`),
    prune: db.prepare(`DELETE FROM alerts WHERE state = 'resolved' AND resolved_at < ?`),
  };
  return {
    unresolved: () => new Map((s.unresolved.all() as Row[]).map((r) => [r.fingerprint, toAlert(r)])),
    list({ state, since, limit, fingerprint }) {
      const rows = fingerprint !== undefined
        ? (s.byFingerprint.all(fingerprint, limit) as Row[]).filter((r) => state === undefined || r.state === state)
        : state
          ? (s.byState.all(state, since, limit) as Row[])
          : (s.recent.all(since, limit) as Row[]);
      return rows.map(toAlert);
    },
    toNotify: (since) => (s.toNotify.all(since) as Row[]).map(toAlert),
    insert: (a) => Number(s.insert.run(a).lastInsertRowid),
    update: (id, fields) => void s.update.run({ id, ...fields }),
    remove: (id) => void s.remove.run(id),
    setGroup: (id, groupKey) => void s.setGroup.run(groupKey, id),
    groupState: (groupKey, notifier) => s.groupGet.get(groupKey, notifier) as ReturnType<AlertStore['groupState']>,
    recordGroupNotify(groupKey, notifier, event, ok, at, digest) {
      if (ok) s.groupOk.run(groupKey, notifier, event, at, at, digest);
      else s.groupFailed.run(groupKey, notifier, at);
    },
    notifyState: (alertId, notifier) => s.notifyGet.get(alertId, notifier) as NotifyState | undefined,
    recordNotify(alertId, notifier, event, ok, at) {
      if (ok) s.notifyOk.run(alertId, notifier, event, at, at);
      else s.notifyFailed.run(alertId, notifier, at);
    },
    prune(before) {
      db.transaction(() => {
        s.pruneNotify.run(before);
        s.pruneGroups.run(before);
        s.prune.run(before);
      })();
    },
  };
}

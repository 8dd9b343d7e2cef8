import type { IncidentIndex } from '../verdicts/incidents.ts';
import type { NotificationGroup } from '../notifiers/types.ts';
import type { StoredAlert } from '../storage/storage.ts';
import { SEVERITY_RANK, type AlertView } from './types.ts';

/** The group an alert notifies under now: its location's prober incident, its key's incident, or itself. */
export function groupOf(a: Pick<StoredAlert, 'rule' | 'keyId' | 'location' | 'fingerprint'>, index: IncidentIndex): { key: string; incident: IncidentIndex['incidents'][number] | null } {
  if (a.location && (a.rule === 'prober_unhealthy' || a.rule === 'probe_failing')) {
    const incident = index.byLocation.get(a.location);
    if (incident) return { key: incident.id, incident };
  }
  if (a.keyId !== null) {
    const incident = index.byKeyId.get(a.keyId);
    if (incident) return { key: incident.id, incident };
  }
  return { key: a.fingerprint, incident: null };
}

/** Most severe first, then the earliest fired: the alert a one-line notice speaks of. */
export function byLead(a: AlertView, b: AlertView): number {
  return SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || (a.fired_at ?? a.started_at) - (b.fired_at ?? b.started_at) || a.id - b.id;
}

/** What a group looked like: its firing alerts and its incident's verdict. A change is an `update`. */
export function digestOf(alerts: AlertView[], incident: NotificationGroup['incident']): string {
  return JSON.stringify([incident?.verdict ?? null, incident?.keys.length ?? null, alerts.map((a) => a.fingerprint).sort()]);
}

/** The title of a group without an incident: the lead alert's rule and target. */
export function ownTitle(a: AlertView): string {
  const target = a.key ? `${a.key.provider}/${a.key.endpoint}/${a.key.model}${a.key.region ? ` (${a.key.region})` : ''}` : a.location ? `location ${a.location}` : `operation ${a.operation}`;
  return `${a.rule}: ${target}`;
}

/** One notification group of a pass: its incident and its alerts by state. */
export interface PassGroup {
  incident: NotificationGroup['incident'];
  firing: AlertView[];
  resolved: AlertView[];
  silenced: number;
}

/**
 * Stage 3, pure: the alerts a notifier wants, grouped (Alertmanager's group_by, done here) —
 * a firing alert under its incident now, a resolved one under the group it last notified in.
 * Silenced alerts are counted, not carried (as Alertmanager mutes them). Firing alerts lead
 * with the most severe.
 */
export function groupAlerts(alerts: AlertView[], index: IncidentIndex, keyIdOf: (a: AlertView) => number | null, wants: (a: AlertView) => boolean): Map<string, PassGroup> {
  const groups = new Map<string, PassGroup>();
  for (const alert of alerts) {
    if (!wants(alert)) continue;
    const { key, incident } = alert.state === 'firing' ? groupOf({ ...alert, keyId: keyIdOf(alert) }, index) : { key: alert.group_key ?? alert.fingerprint, incident: null };
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { incident: null, firing: [], resolved: [], silenced: 0 }));
    g.incident ??= incident;
    if (alert.silenced) g.silenced += alert.state === 'firing' ? 1 : 0;
    else if (alert.state === 'firing') g.firing.push(alert);
    else if (alert.state === 'resolved') g.resolved.push(alert);
  }
  for (const g of groups.values()) g.firing.sort(byLead);
  return groups;
}

import type { AlertState, AlertView } from '../../schemas/alerts.ts';

/** An alert row with its key resolved. */
export type StoredAlert = Omit<AlertView, 'silenced' | 'silenced_by'> & { keyId: number | null };

/** The fields an evaluation writes on an existing alert. */
export type AlertFields = Pick<StoredAlert, 'state' | 'summary' | 'value' | 'verdict' | 'hint' | 'fired_at' | 'resolved_at' | 'updated_at' | 'severity'>;

/** One lifecycle change of an evaluation pass. */
export type AlertChange =
  | { op: 'insert'; alert: Omit<StoredAlert, 'id' | 'key' | 'group_key'> }
  | { op: 'update'; id: number; fields: AlertFields }
  | { op: 'remove'; id: number }
  | { op: 'group'; id: number; groupKey: string };

/** Alert lifecycle rows (the notification state is in `notifications`). */
export interface AlertsPart {
  /** Pending and firing alerts, by fingerprint (at most one unresolved alert per fingerprint). */
  unresolved(): Promise<Map<string, StoredAlert>>;
  /**
   * Alerts for the API, newest first (started_at, then id, descending), at most `limit`:
   * with `fingerprint`, that target's alerts (optionally of one `state`); with `state`,
   * alerts in it (resolved ones only if resolved since `since`); else unresolved alerts
   * plus those resolved since `since`.
   */
  list(options: { state?: AlertState; since: number; limit: number; fingerprint?: string }): Promise<StoredAlert[]>;
  /** Firing alerts, and alerts resolved since `since` (they may still owe a resolve notice); unordered. */
  toNotify(since: number): Promise<StoredAlert[]>;
  /** Applies one evaluation's changes in order, in one transaction: all or none. Resolves to the ids of inserted alerts, in order. */
  apply(changes: readonly AlertChange[]): Promise<number[]>;
  /** Unresolved alerts by state and severity, for `/metrics`. */
  countsByState(): Promise<{ state: string; severity: string; n: number }[]>;
}

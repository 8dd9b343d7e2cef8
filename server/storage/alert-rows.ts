/** What both engines do with an `alerts` row joined to its key: only the SQL differs per engine. */
import type { AlertState, RuleName, Severity } from '../schemas/alerts.ts';
import type { Hint, Verdict } from '../schemas/verdicts.ts';
import type { StoredAlert } from './parts/alerts.ts';
import { keyFromRow } from './key-rows.ts';

/** An `alerts` row with its key's columns (LEFT JOIN keys: null for alerts without a key). */
export type AlertRow = {
  id: number; fingerprint: string; rule: RuleName; key_id: number | null; location: string | null; operation: string | null;
  state: AlertState; severity: Severity; summary: string; value: number | null; verdict: Verdict | null; hint: Hint | null;
  started_at: number; fired_at: number | null; resolved_at: number | null; updated_at: number; group_key: string | null;
  provider: string | null; endpoint: string | null; model: string | null; region: string | null;
};

/** The row as the alerts part returns it. */
export function toAlert(r: AlertRow): StoredAlert {
  return {
    id: r.id, fingerprint: r.fingerprint, rule: r.rule, keyId: r.key_id,
    key: r.provider === null ? null : keyFromRow({ provider: r.provider, endpoint: r.endpoint!, model: r.model!, region: r.region! }),
    location: r.location, operation: r.operation, state: r.state, severity: r.severity, summary: r.summary, value: r.value,
    started_at: r.started_at, fired_at: r.fired_at, resolved_at: r.resolved_at, updated_at: r.updated_at, verdict: r.verdict, hint: r.hint,
    group_key: r.group_key,
  };
}

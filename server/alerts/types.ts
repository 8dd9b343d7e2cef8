import type { BreakerKey } from '@breakerbox/protocol';
import type { Hint, Verdict } from '../verdicts/types.ts';

/** The alert rules. */
export const RULES = ['flapping', 'open_share', 'fallback_failing', 'probe_failing', 'cost_per_success', 'prober_unhealthy', 'clients_degraded', 'prober_silent'] as const;
export type RuleName = (typeof RULES)[number];

export type Severity = 'info' | 'warning' | 'critical';
export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

export type AlertState = 'pending' | 'firing' | 'resolved';

/**
 * What a rule found for one target at this evaluation: above the fire threshold, between
 * the thresholds (hysteresis: a firing alert stays, a pending one is dropped), or clear.
 */
export interface Condition {
  fingerprint: string;
  rule: RuleName;
  keyId: number | null;
  key: BreakerKey | null;
  location: string | null;
  operation: string | null;
  status: 'fire' | 'hold' | 'clear';
  value: number | null;
  /** The rule's own sentence, before the verdict phrase. */
  text: string;
  /**
   * The verdict this condition pages with when it is not the key's own over the verdict
   * window (a service judged on its own calls), and the phrase said instead of the key's.
   */
  verdict?: { verdict: Verdict; hint: Hint | null; phrase: string };
}

/** An alert as the API shows it (docs/api.md). */
export interface AlertView {
  id: number;
  fingerprint: string;
  rule: RuleName;
  key: BreakerKey | null;
  location: string | null;
  operation: string | null;
  state: AlertState;
  severity: Severity;
  summary: string;
  value: number | null;
  started_at: number;
  fired_at: number | null;
  resolved_at: number | null;
  updated_at: number;
  verdict: Verdict | null;
  hint: Hint | null;
  /** The incident id its notifications are grouped under (its own fingerprint when in none). */
  group_key: string | null;
  silenced: boolean;
  silenced_by: string[];
}

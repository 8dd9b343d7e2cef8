import type { BreakerKey } from '@breakerbox/protocol';
import type { RuleName, Severity } from '../schemas/alerts.ts';
import type { Hint, Verdict } from '../verdicts/types.ts';

// The rules, severities, states and the alert as the API shows it are the API's schemas (server/schemas/alerts.ts).
export { RULES } from '../schemas/alerts.ts';
export type { AlertState, AlertView, RuleName, Severity } from '../schemas/alerts.ts';

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

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
  /** The severity of this condition when the rule grades its own (model_retiring); else the rule's configured one. */
  severity?: Severity;
  /**
   * When the condition began on the data's timeline (ms), as the rule computed it from its
   * per-minute sums (server/alerts/data-onset.ts): `for_s` is counted from here, so a
   * condition the stored data already shows holding fires on the first pass that sees it
   * (after a restart, a take-over or a late batch). Absent: the evaluation time, as before.
   */
  onset?: number;
}

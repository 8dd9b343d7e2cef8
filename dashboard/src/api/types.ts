/**
 * The read API's answers, as documented in `docs/api.md` (the contract). Only the fields
 * the dashboard reads are typed; shares are 0..1 or null when their denominator is zero.
 */

// The shapes the server defines are imported as types only (erased from the bundle), so
// the dashboard and the API cannot drift apart.
import type { BreakerKey } from '@breakerbox/protocol';
import type { ClientFigures, Hint, Percentiles, ProbeFigures, ProbeStatus, Verdict, VerdictEntry } from '../../../server/verdicts/types.ts';

import type { Silence } from '../../../server/alerts/silences.ts';
import type { Delivery } from '../../../server/storage/storage.ts';
import type { OperationCost as CostOperation } from '../../../server/verdicts/cost-view.ts';
import type { FallbackHealth } from '../../../server/verdicts/fallback-health.ts';
import type { Incident } from '../../../server/verdicts/incidents.ts';
import type { LocationHealth } from '../../../server/verdicts/prober-health.ts';
import type { SamplesReplyBody as SamplesReply } from '../../../server/plugins/samples.ts';

export type { Incident, LocationHealth, SamplesReply };
export type { BreakerKey, ClientFigures, CostOperation, Delivery, FallbackHealth, Hint, Percentiles, ProbeFigures, ProbeStatus, Silence, Verdict, VerdictEntry };

export interface Window {
  from: number;
  to: number;
}

export interface IncidentsReply {
  window: Window;
  incidents: Incident[];
}

export interface VerdictsReply {
  window: Window;
  verdicts: VerdictEntry[];
}

export interface BreakerStateSummary {
  summary: 'open' | 'half_open' | 'closed' | 'unknown';
  open: number;
  half_open: number;
  closed: number;
  instances: number;
  text: string;
}

export interface KeyEntry {
  key: BreakerKey;
  first_seen: number;
  last_seen: number;
  state?: BreakerStateSummary;
  verdict?: Verdict;
  hint?: Hint | null;
  /** Not in docs/api.md yet: the services reporting the key, for the board's service filter. */
  services?: string[];
  headline?: {
    calls: number;
    error_share: number | null;
    provider_error_share: number | null;
    slow_share: number | null;
    open_share: number | null;
    transitions_per_hour: number | null;
    rejected: number;
    short_circuited: number;
    retry_ratio: number | null;
    p95_ms: number | null;
    probe_success_share: number | null;
    cost_usd: number;
    fallback_failed: number;
  };
}

export interface KeysReply {
  window?: Window;
  keys: KeyEntry[];
}

export interface SeriesPoint {
  t: number;
  calls: number;
  ok: number;
  failed: number;
  slow: number;
  errors: Record<string, number>;
  error_share: number | null;
  slow_share: number | null;
  rejected: number;
  short_circuited: number;
  retries: number;
  open_share: number | null;
  transitions: number;
  opens: number;
  half_open_ok: number;
  half_open_failed: number;
  fallback_invoked: number;
  fallback_failed: number;
  latency_ms: Percentiles;
  /** Not in docs/api.md yet: TTFT percentiles per bucket. */
  ttft_ms?: Percentiles;
  cost_usd: number;
  verdict: Verdict;
  hint: Hint | null;
}

export interface ProbePoint {
  t: number;
  probes: number;
  ok: number;
  failed: number;
  success_share: number | null;
  latency_ms: Percentiles;
}

export interface TransitionRecord {
  ts: number;
  service: string;
  instance: string;
  from: string | null;
  to: string;
  reason: string;
}

export interface KeyDetailReply {
  key: BreakerKey;
  window: Window;
  step_ms: number;
  verdict: Verdict;
  hint: Hint | null;
  clients: ClientFigures;
  probes: Record<string, ProbeFigures>;
  evidence: string[];
  state: BreakerStateSummary;
  services: { service: string; instances: number; calls: number; error_share: number | null; slow_share: number | null; rejected: number; retry_ratio: number | null; degraded: boolean }[];
  instances: { service: string; instance: string; sdk: string | null; state: string | null; state_since: number | null; last_seen: number; calls: number; failed: number; error_share: number | null; degraded: boolean }[];
  config: { ts: number; service: string; instance: string; settings: Record<string, unknown>; fallbacks: BreakerKey[]; warnings: string[] } | null;
  fallbacks: FallbackHealth[];
  series: SeriesPoint[];
  probe_series: Record<string, ProbePoint[]>;
  transitions: TransitionRecord[];
}

export type AlertState = 'pending' | 'firing' | 'resolved';

export interface Alert {
  id: number;
  fingerprint: string;
  rule: string;
  key: BreakerKey | null;
  location: string | null;
  operation: string | null;
  state: AlertState;
  severity: string;
  summary: string;
  value: number | null;
  started_at: number;
  fired_at: number | null;
  resolved_at: number | null;
  verdict: Verdict | null;
  hint: Hint | null;
  silenced: boolean;
  silenced_by: string[];
}

export interface Matcher {
  name: string;
  value: string;
  regex?: boolean;
}




export interface CostReply {
  window: Window;
  step_ms: number;
  operations: CostOperation[];
}

export interface ProbeResult {
  ts: number;
  outcome: 'ok' | 'slow' | 'error';
  error_class: string | null;
  status: number | null;
  total_ms?: number;
  latency_ms?: { connect?: number | null; ttfb?: number | null; total: number };
}

export interface ProbesReply {
  window: Window;
  locations: {
    location: string;
    last_ts: number | null;
    /** Absent from collectors before incidents. */
    health?: LocationHealth;
    targets: { key: BreakerKey; figures: ProbeFigures; last: ProbeResult | null; recent: ProbeResult[] }[];
  }[];
  /** Paged by target (`limit`, `cursor`); absent from collectors before paging. */
  next_cursor?: string | null;
  total?: number;
}

export interface SessionInfo {
  name: string;
  rights: string[];
  expires_at: number;
}

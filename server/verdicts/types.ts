import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';

/** The five verdicts, worst first (the order `/api/verdicts` sorts by). */
export const VERDICTS = ['provider_outage', 'self_inflicted', 'provider_degraded', 'insufficient_data', 'healthy'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Hints that say why, or what is missing. */
export type Hint =
  | 'retry_storm'
  | 'client_errors'
  | 'quota'
  | 'capacity'
  | 'local'
  | 'regional'
  | 'probe_misconfigured'
  | 'no_probes'
  | 'low_volume';

/** p50/p95/p99 in ms, null without data. */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** What the applications saw for a key over a window (docs/api.md, ClientFigures). */
export interface ClientFigures {
  calls: number;
  ok: number;
  failed: number;
  slow: number;
  error_share: number | null;
  provider_error_share: number | null;
  client_error_share: number | null;
  errors: Record<ErrorClass, number>;
  slow_share: number | null;
  rejected: number;
  rejection_share: number | null;
  short_circuited: number;
  retries: number;
  retry_ratio: number | null;
  half_open: { ok: number; failed: number; success_share: number | null };
  open_share: number | null;
  transitions: number;
  opens: number;
  transitions_per_hour: number;
  opens_per_hour: number;
  fallback: { invoked: number; failed: number };
  latency_ms: Percentiles;
  ttft_ms: Percentiles;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  instances: number;
  services: number;
  degraded: boolean;
}

/** Probe location status: what the verdict reads. */
export type ProbeStatus = 'ok' | 'failing' | 'misconfigured' | 'insufficient';

/** What one probe location saw for a key (docs/api.md, ProbeFigures). */
export interface ProbeFigures {
  probes: number;
  ok: number;
  slow: number;
  error: number;
  misconfigured: number;
  cold: number;
  success_share: number | null;
  slow_share: number | null;
  latency_ms: { p50: number | null; p95: number | null; mean: number | null };
  recent: { probes: number; failed: number };
  status: ProbeStatus;
  last_ts: number | null;
}

/** One entry of `/api/verdicts`. */
export interface VerdictEntry {
  key: BreakerKey;
  verdict: Verdict;
  hint: Hint | null;
  clients: ClientFigures;
  probes: Record<string, ProbeFigures>;
  evidence: string[];
}

/** A breaker's state across instances ("open on 2 of 5"). */
export interface KeyState {
  summary: 'open' | 'half_open' | 'closed' | 'unknown';
  open: number;
  half_open: number;
  closed: number;
  instances: number;
  text: string;
}

/** A part of the fleet (a service or an instance) judged on its own, for the `local` hint. */
export interface PartHealth {
  name: string;
  calls: number;
  degraded: boolean;
}

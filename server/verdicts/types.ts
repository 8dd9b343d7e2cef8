import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';

/**
 * The verdicts, worst first (the order `/api/verdicts` sorts by). `provider_suspected`:
 * clients fail with provider-side errors, no self-side signal, and the probes did not see
 * it — not ours, not confirmed either (docs/alerts.md).
 */
export const VERDICTS = ['provider_outage', 'provider_suspected', 'self_inflicted', 'provider_degraded', 'insufficient_data', 'healthy'] as const;
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
  | 'low_volume'
  | 'truncation'
  | 'intermittent'
  | 'probes_inconclusive'
  | 'traffic_shape'
  | 'probe_only'
  | 'probes_set_aside'
  | 'probes_pending'
  | 'probes_stale'
  | 'sibling_probes';

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
  /** True when the location is judged unhealthy (a prober problem) and left out of verdicts. */
  set_aside: boolean;
}

/**
 * How strongly clean probes argue against a provider-side cause: if the provider failed at
 * the clients' provider-side share, `probes` probes from `location` would all pass with
 * probability `chance` = (1 − failure_share)^probes.
 */
export interface ProbePower {
  failure_share: number;
  location: string;
  probes: number;
  chance: number;
  refutes: boolean;
}

/** The strongest other answer and the figure that ruled it out. */
export interface Alternative {
  verdict: Verdict;
  why: string;
}

/** One entry of `/api/verdicts`. */
export interface VerdictEntry {
  key: BreakerKey;
  verdict: Verdict;
  hint: Hint | null;
  clients: ClientFigures;
  probes: Record<string, ProbeFigures>;
  evidence: string[];
  /** The strongest alternative verdict and why it was ruled out. */
  alternative: Alternative;
  /** Set when clients failed while the probes were clean. */
  probe_power: ProbePower | null;
  /** Keys whose probes were joined into this one through `verdicts.provider_aliases`. */
  joined: BreakerKey[];
  /** With no probes for this key: probed keys of the same model under another provider or region. */
  near_matches: BreakerKey[];
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

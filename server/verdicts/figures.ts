import type { ErrorClass } from '@breakerbox/protocol';
import { quantile } from '../storage/histogram.ts';
import { CLIENT_CLASSES, ERROR_CLASSES, PROVIDER_CLASSES } from '@breakerbox/protocol';
import { K, P, errorsOf, histogramOf, type KeySums, type ProbeSums } from './counters.ts';
import type { ProbeMinute } from '../storage/storage.ts';
import type { ClientFigures, Percentiles, ProbeFigures } from './types.ts';

/** The verdict thresholds (config `verdicts`). */
export interface VerdictThresholds {
  min_calls: number;
  degraded_error_share: number;
  degraded_slow_share: number;
  degraded_rejection_share: number;
  degraded_open_share: number;
  min_probes: number;
  probe_recent: number;
  probe_recent_lookback_s: number;
  probe_failing_share: number;
  hint_dominant_share: number;
  retry_storm_ratio: number;
  capacity_max_slow_share: number;
  local_min_calls: number;
  instance_lookback_s: number;
  open_idle_after_s: number;
  probe_refute_max_chance: number;
  probe_intermittent_share: number;
  probe_split_max_p: number;
  slow_probe_lookback_s: number;
  slow_probe_baseline_min_probes: number;
  slow_probe_ratio: number;
  slow_probe_min_delta_ms: number;
  stale_probe_lookback_s: number;
  served_change_lookback_s: number;
  wrong_answer_lookback_s: number;
  wrong_answer_min: number;
  wrong_answer_share: number;
  wrong_answer_min_locations: number;
  prober_min_keys: number;
  prober_min_providers: number;
  prober_failing_share: number;
  prober_network_share: number;
  provider_aliases: Record<string, string>;
}

/** `a / b`, or null when b is zero. */
export const share = (a: number, b: number): number | null => (b > 0 ? a / b : null);

const round = (x: number | null, digits = 4): number | null => (x === null ? null : Number(x.toFixed(digits)));

function percentiles(counts: number[]): Percentiles {
  return { p50: round(quantile(counts, 0.5), 1), p95: round(quantile(counts, 0.95), 1), p99: round(quantile(counts, 0.99), 1) };
}

const sumClasses = (errors: Record<ErrorClass, number>, classes: readonly ErrorClass[]) =>
  classes.reduce((total, c) => total + errors[c], 0);

/** What goes into ClientFigures besides the summed counters. */
export interface ClientExtras {
  spanMs: number;
  openShare: number | null;
  instances: number;
  services: number;
  fallback: { invoked: number; failed: number };
}

/**
 * Client degradation (docs/alerts.md): over the minimum volume, failed calls of any class, slow
 * calls or bulkhead rejections above their shares, or any breaker open beyond the open share.
 * Open time alone counts even below the volume: an open breaker sends few calls.
 */
export function isClientDegraded(f: Pick<ClientFigures, 'calls' | 'error_share' | 'slow_share' | 'rejection_share' | 'open_share'>, t: VerdictThresholds): boolean {
  if ((f.open_share ?? 0) > t.degraded_open_share) return true;
  if (f.calls < t.min_calls) return false;
  return (
    (f.error_share ?? 0) >= t.degraded_error_share ||
    (f.slow_share ?? 0) >= t.degraded_slow_share ||
    (f.rejection_share ?? 0) >= t.degraded_rejection_share
  );
}

/** Builds ClientFigures from summed counters over a span. */
export function clientFigures(sums: KeySums, extras: ClientExtras, t: VerdictThresholds): ClientFigures {
  const errors = errorsOf(sums);
  const calls = sums[K.calls]!;
  const failed = sumClasses(errors, ERROR_CLASSES); // unclassified failures too: failed, held against neither side
  const rejected = sums[K.rejected]!;
  const hours = extras.spanMs / 3_600_000;
  const halfOk = sums[K.halfOpenOk]!;
  const halfFailed = sums[K.halfOpenFailed]!;
  const figures: ClientFigures = {
    calls,
    ok: sums[K.ok]!,
    failed,
    slow: sums[K.slow]!,
    error_share: round(share(failed, calls)),
    provider_error_share: round(share(sumClasses(errors, PROVIDER_CLASSES), calls)),
    client_error_share: round(share(sumClasses(errors, CLIENT_CLASSES), calls)),
    errors,
    slow_share: round(share(sums[K.slow]!, calls)),
    rejected,
    rejection_share: round(share(rejected, calls + rejected)),
    short_circuited: sums[K.shortCircuited]!,
    retries: sums[K.retries]!,
    retry_ratio: round(share(sums[K.retries]!, calls)),
    half_open: { ok: halfOk, failed: halfFailed, success_share: round(share(halfOk, halfOk + halfFailed)) },
    open_share: round(extras.openShare),
    transitions: sums[K.transitions]!,
    opens: sums[K.opens]!,
    transitions_per_hour: Number((sums[K.transitions]! / hours).toFixed(2)),
    opens_per_hour: Number((sums[K.opens]! / hours).toFixed(2)),
    fallback: extras.fallback,
    latency_ms: percentiles(histogramOf(sums, K.latency)),
    ttft_ms: percentiles(histogramOf(sums, K.ttft)),
    input_tokens: sums[K.inputTokens]!,
    output_tokens: sums[K.outputTokens]!,
    cost_usd: Number(sums[K.cost]!.toFixed(6)),
    instances: extras.instances,
    services: extras.services,
    degraded: false,
  };
  figures.degraded = isClientDegraded(figures, t);
  return figures;
}

/**
 * Builds ProbeFigures. `recent` holds this location's probe minutes newest first. The
 * status: the latest `min_probes` when they all failed (failing) or all passed (ok), else
 * the share failed of the most recent `probe_recent` warm probes (whole minutes).
 */
export function probeFigures(sums: ProbeSums, recent: ProbeMinute[], t: VerdictThresholds): ProbeFigures {
  let probes = 0;
  let failed = 0;
  let misconfigured = 0;
  let lastTs: number | null = null;
  // The latest `min_probes` (whole minutes) on their own: when they all agree they decide,
  // so a new outage or a recovery shows in a few probes instead of after most of
  // `probe_recent` have turned.
  let latest: { probes: number; failed: number } | null = null;
  for (const m of recent) {
    if (m.probes === 0) continue;
    lastTs ??= m.minute;
    probes += m.probes;
    failed += m.failed;
    misconfigured += m.misconfigured;
    if (latest === null && probes >= t.min_probes) latest = { probes, failed };
    if (probes >= t.probe_recent) break;
  }
  let status: ProbeFigures['status'];
  const failing = () => (misconfigured * 2 > failed ? 'misconfigured' : 'failing');
  if (probes < t.min_probes) status = 'insufficient';
  else if (latest !== null && latest.failed === latest.probes) status = failing();
  else if (latest !== null && latest.failed === 0) status = 'ok';
  else if (failed / probes > t.probe_failing_share) status = failing();
  else status = 'ok';
  const total = sums[P.probes]!;
  const counts = histogramOf(sums, P.latency);
  return {
    probes: total,
    ok: sums[P.ok]!,
    slow: sums[P.slow]!,
    error: sums[P.error]!,
    wrong_answer: sums[P.wrongAnswer]!,
    misconfigured: sums[P.misconfigured]!,
    cold: sums[P.cold]!,
    success_share: round(share(sums[P.ok]!, total)),
    slow_share: round(share(sums[P.slow]!, total)),
    latency_ms: {
      p50: round(quantile(counts, 0.5), 1),
      p95: round(quantile(counts, 0.95), 1),
      mean: round(share(sums[P.totalMs]!, total), 1),
    },
    recent: { probes, failed },
    status,
    last_ts: lastTs,
    set_aside: false,
  };
}

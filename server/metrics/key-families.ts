import { ROLLUP_BOUNDS, ROLLUP_BUCKETS } from '../storage/histogram.ts';
import { ERROR_CLASSES, KEY_COLUMNS as KEY_COUNTERS, PROBE_COLUMNS as PROBE_COUNTERS } from '@breakerbox/protocol';
import { VERDICTS, type Verdict } from '../verdicts/types.ts';
import { withLabel, type SampleSink } from './exposition.ts';

/** The current state of a key over the `/metrics` window, from the verdict engine. */
export interface KeyStateNow {
  closed: number;
  open: number;
  halfOpen: number;
  openRatio: number | null;
  verdict: Verdict;
}

/** What one key contributes to the page, held for the duration of one scrape. */
export interface KeySnapshot {
  /** Rendered key labels: provider, endpoint, model, region. */
  labels: string;
  /** KEY_COUNTERS summed over services. */
  sums: number[];
  /** Per service: labels (key + service) and KEY_COUNTERS. */
  services: { labels: string; values: number[] }[];
  /** Per location: labels (key + location) and PROBE_COUNTERS. */
  probes: { labels: string; values: number[] }[];
  /** Per target state and reason: labels (key + to_state + reason) and the count. */
  transitions: { labels: string; count: number }[];
  state: KeyStateNow | null;
}

/** A metric family with one or more series per key. */
export interface KeyFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  help: string;
  write(k: KeySnapshot, out: SampleSink): void;
  /** The series `write` writes for `k`, without building them (the cap admits keys by it). */
  count(k: KeySnapshot): number;
}

const at = (name: string) => {
  const i = KEY_COUNTERS.indexOf(name);
  if (i < 0) throw new Error(`no rollup counter ${name}`);
  return i;
};
const C = {
  calls: at('calls'), ok: at('ok'), slow: at('slow'), errors: at(`e_${ERROR_CLASSES[0]}`), rejected: at('rejected'),
  shortCircuited: at('short_circuited'), retries: at('retries'), coldExcluded: at('cold_excluded'),
  halfOpenOk: at('half_open_ok'), halfOpenFailed: at('half_open_failed'), input: at('input_tokens'), output: at('output_tokens'),
  cost: at('cost_usd'), h: at('h0'), t: at('t0'),
};
const probeAt = (name: string) => {
  const i = PROBE_COUNTERS.indexOf(name);
  if (i < 0) throw new Error(`no probe rollup counter ${name}`);
  return i;
};
const P = {
  probes: probeAt('probes'), ok: probeAt('ok'), slow: probeAt('slow'), error: probeAt('error'), misconfigured: probeAt('misconfigured'),
  cold: probeAt('cold'), total_ms_sum: probeAt('total_ms_sum'), cost_usd: probeAt('cost_usd'),
};
const PH = probeAt('h0');

/** `le` label values: the protocol's bounds in seconds, then +Inf. */
const LE = [...ROLLUP_BOUNDS.map((b) => String(b / 1000)), '+Inf'];

/** Cumulative `_bucket` lines (and `_count`, and `_sum` when known) from per-bucket rollup counts at `from`. */
function histogram(out: SampleSink, name: string, labels: string, values: number[], from: number, sumSeconds: number | null): void {
  let total = 0;
  for (let i = 0; i < ROLLUP_BUCKETS; i++) {
    total += values[from + i]!;
    out.sample(`${name}_bucket`, withLabel(labels, 'le', LE[i]!), total);
  }
  if (sumSeconds !== null) out.sample(`${name}_sum`, labels, sumSeconds);
  out.sample(`${name}_count`, labels, total);
}

/** Series of one histogram: a bucket per bound and +Inf, _count, and _sum when known. */
const HISTOGRAM_SERIES = ROLLUP_BUCKETS + 1;
const nonZero = (v: number) => (v > 0 ? 1 : 0);

const bucketsTotal = (values: number[], from: number) => {
  let n = 0;
  for (let i = 0; i < ROLLUP_BUCKETS; i++) n += values[from + i]!;
  return n;
};

/** A per-key counter from the summed totals, written only once it is non-zero. */
const sparse = (name: string, help: string, column: number): KeyFamily => ({
  name,
  type: 'counter',
  help,
  write(k, out) {
    const v = k.sums[column]!;
    if (v > 0) out.sample(name, k.labels, v);
  },
  count: (k) => nonZero(k.sums[column]!),
});

/**
 * The per-key families, in page order. Counters come from the all-time totals (monotonic
 * across restarts); rare-event counters and error types appear once they are non-zero.
 */
export const KEY_FAMILIES: readonly KeyFamily[] = [
  {
    name: 'breakerbox_calls_total',
    type: 'counter',
    help: 'Calls sent to the provider (retries included), per key and reporting service.',
    write(k, out) {
      for (const s of k.services) out.sample('breakerbox_calls_total', s.labels, s.values[C.calls]!);
    },
    count: (k) => k.services.length,
  },
  {
    name: 'breakerbox_failed_calls_total',
    type: 'counter',
    help: 'Failed calls per key, service and error_type (the error taxonomy class); only types that occurred.',
    write(k, out) {
      for (const s of k.services) {
        for (let i = 0; i < ERROR_CLASSES.length; i++) {
          const v = s.values[C.errors + i]!;
          if (v > 0) out.sample('breakerbox_failed_calls_total', withLabel(s.labels, 'error_type', ERROR_CLASSES[i]!), v);
        }
      }
    },
    count(k) {
      let n = 0;
      for (const s of k.services) for (let i = 0; i < ERROR_CLASSES.length; i++) n += nonZero(s.values[C.errors + i]!);
      return n;
    },
  },
  {
    name: 'breakerbox_successful_calls_total',
    type: 'counter',
    help: 'Calls that succeeded (slow ones included), per key.',
    write(k, out) {
      if (k.sums[C.calls]! > 0 || k.sums[C.ok]! > 0) out.sample('breakerbox_successful_calls_total', k.labels, k.sums[C.ok]!);
    },
    count: (k) => (k.sums[C.calls]! > 0 || k.sums[C.ok]! > 0 ? 1 : 0),
  },
  sparse('breakerbox_slow_calls_total', "Successful calls slower than the key's latency ceiling, per key.", C.slow),
  sparse('breakerbox_bulkhead_rejected_calls_total', 'Calls the bulkhead refused (never sent), per key.', C.rejected),
  sparse('breakerbox_short_circuited_calls_total', 'Calls refused because the breaker was open (never sent), per key.', C.shortCircuited),
  sparse('breakerbox_retries_total', 'Retries sent (part of calls), per key.', C.retries),
  sparse('breakerbox_cold_excluded_calls_total', 'Calls left out of the breaker statistics as cold starts, per key.', C.coldExcluded),
  {
    name: 'breakerbox_half_open_calls_total',
    type: 'counter',
    help: 'Trial calls while the breaker was half-open, per key and outcome (ok, failed).',
    write(k, out) {
      if (k.sums[C.halfOpenOk]! > 0) out.sample('breakerbox_half_open_calls_total', withLabel(k.labels, 'outcome', 'ok'), k.sums[C.halfOpenOk]!);
      if (k.sums[C.halfOpenFailed]! > 0) out.sample('breakerbox_half_open_calls_total', withLabel(k.labels, 'outcome', 'failed'), k.sums[C.halfOpenFailed]!);
    },
    count: (k) => nonZero(k.sums[C.halfOpenOk]!) + nonZero(k.sums[C.halfOpenFailed]!),
  },
  {
    name: 'breakerbox_tokens_total',
    type: 'counter',
    help: 'Tokens per key and token_type (input, output), as gen_ai.token.type.',
    write(k, out) {
      if (k.sums[C.input]! > 0) out.sample('breakerbox_tokens_total', withLabel(k.labels, 'token_type', 'input'), k.sums[C.input]!);
      if (k.sums[C.output]! > 0) out.sample('breakerbox_tokens_total', withLabel(k.labels, 'token_type', 'output'), k.sums[C.output]!);
    },
    count: (k) => nonZero(k.sums[C.input]!) + nonZero(k.sums[C.output]!),
  },
  sparse('breakerbox_cost_usd_total', 'Spend in USD reported by the clients, per key.', C.cost),
  {
    name: 'breakerbox_call_duration_seconds',
    type: 'histogram',
    help: 'Call latency per key on the protocol bucket bounds; no _sum (the protocol carries counts only).',
    write(k, out) {
      if (bucketsTotal(k.sums, C.h) > 0) histogram(out, 'breakerbox_call_duration_seconds', k.labels, k.sums, C.h, null);
    },
    count: (k) => (bucketsTotal(k.sums, C.h) > 0 ? HISTOGRAM_SERIES : 0),
  },
  {
    name: 'breakerbox_time_to_first_token_seconds',
    type: 'histogram',
    help: 'Time to first token of streamed calls per key on the protocol bucket bounds; no _sum.',
    write(k, out) {
      if (bucketsTotal(k.sums, C.t) > 0) histogram(out, 'breakerbox_time_to_first_token_seconds', k.labels, k.sums, C.t, null);
    },
    count: (k) => (bucketsTotal(k.sums, C.t) > 0 ? HISTOGRAM_SERIES : 0),
  },
  {
    name: 'breakerbox_breaker_transitions_total',
    type: 'counter',
    help: "Breaker state changes per key, to_state and reason (a breaker's first report is not one).",
    write(k, out) {
      for (const t of k.transitions) out.sample('breakerbox_breaker_transitions_total', t.labels, t.count);
    },
    count: (k) => k.transitions.length,
  },
  {
    name: 'breakerbox_probes_total',
    type: 'counter',
    help: 'Warm probes per key, location and outcome (ok, slow, error).',
    write(k, out) {
      for (const p of k.probes) {
        if (p.values[P.probes]! === 0) continue;
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'ok'), p.values[P.ok]!);
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'slow'), p.values[P.slow]!);
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'error'), p.values[P.error]!);
      }
    },
    count: (k) => 3 * k.probes.filter((p) => p.values[P.probes]! > 0).length,
  },
  {
    name: 'breakerbox_misconfigured_probes_total',
    type: 'counter',
    help: 'Warm probes that failed as bad_request, auth or context_length (the probe is wrong, not the provider), per key and location.',
    write(k, out) {
      for (const p of k.probes) if (p.values[P.misconfigured]! > 0) out.sample('breakerbox_misconfigured_probes_total', p.labels, p.values[P.misconfigured]!);
    },
    count: (k) => k.probes.filter((p) => p.values[P.misconfigured]! > 0).length,
  },
  {
    name: 'breakerbox_cold_probes_total',
    type: 'counter',
    help: 'Cold probes (first of a connection, counted apart), per key and location.',
    write(k, out) {
      for (const p of k.probes) if (p.values[P.cold]! > 0) out.sample('breakerbox_cold_probes_total', p.labels, p.values[P.cold]!);
    },
    count: (k) => k.probes.filter((p) => p.values[P.cold]! > 0).length,
  },
  {
    name: 'breakerbox_probe_duration_seconds',
    type: 'histogram',
    help: 'Total latency of warm probes per key and location on the protocol bucket bounds.',
    write(k, out) {
      for (const p of k.probes) {
        if (p.values[P.probes]! > 0) histogram(out, 'breakerbox_probe_duration_seconds', p.labels, p.values, PH, p.values[P.total_ms_sum]! / 1000);
      }
    },
    count: (k) => (HISTOGRAM_SERIES + 1) * k.probes.filter((p) => p.values[P.probes]! > 0).length,
  },
  {
    name: 'breakerbox_probe_cost_usd_total',
    type: 'counter',
    help: 'Spend of the probes in USD, per key and location.',
    write(k, out) {
      for (const p of k.probes) if (p.values[P.cost_usd]! > 0) out.sample('breakerbox_probe_cost_usd_total', p.labels, p.values[P.cost_usd]!);
    },
    count: (k) => k.probes.filter((p) => p.values[P.cost_usd]! > 0).length,
  },
  {
    name: 'breakerbox_breaker_instances',
    type: 'gauge',
    help: 'Instances reporting the key by breaker state now (closed, open, half_open).',
    write(k, out) {
      if (!k.state) return;
      out.sample('breakerbox_breaker_instances', withLabel(k.labels, 'state', 'closed'), k.state.closed);
      out.sample('breakerbox_breaker_instances', withLabel(k.labels, 'state', 'open'), k.state.open);
      out.sample('breakerbox_breaker_instances', withLabel(k.labels, 'state', 'half_open'), k.state.halfOpen);
    },
    count: (k) => (k.state ? 3 : 0),
  },
  {
    name: 'breakerbox_breaker_open_ratio',
    type: 'gauge',
    help: 'Share of instance-time the breaker was open or half-open over the metrics window.',
    write(k, out) {
      if (k.state && k.state.openRatio !== null) out.sample('breakerbox_breaker_open_ratio', k.labels, k.state.openRatio);
    },
    count: (k) => (k.state && k.state.openRatio !== null ? 1 : 0),
  },
  {
    name: 'breakerbox_verdict',
    type: 'gauge',
    help: "State set: 1 for the key's verdict over the metrics window, 0 for the others.",
    write(k, out) {
      if (!k.state) return;
      for (const v of VERDICTS) out.sample('breakerbox_verdict', withLabel(k.labels, 'verdict', v), v === k.state.verdict ? 1 : 0);
    },
    count: (k) => (k.state ? VERDICTS.length : 0),
  },
];

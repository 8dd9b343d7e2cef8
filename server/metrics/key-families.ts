import { ROLLUP_BOUNDS } from '../storage/histogram.ts';
import { ERROR_CLASSES, ROLLUP_BUCKETS } from '@breakerbox/protocol';
// Column positions: the ones the verdicts read the same rollups with.
import { K, P } from '../verdicts/counters.ts';
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
  /** KEY_COLUMNS summed over services. */
  sums: number[];
  /** Per service: labels (key + service) and KEY_COLUMNS. */
  services: { labels: string; values: number[] }[];
  /** Per location: labels (key + location) and PROBE_COLUMNS. */
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

/** A per-key counter split by one label, one column per value, each written once non-zero. */
const sparseBy = (name: string, help: string, label: string, columns: Record<string, number>): KeyFamily => {
  const parts = Object.entries(columns);
  return {
    name,
    type: 'counter',
    help,
    write(k, out) {
      for (const [value, column] of parts) if (k.sums[column]! > 0) out.sample(name, withLabel(k.labels, label, value), k.sums[column]!);
    },
    count: (k) => parts.reduce((n, [, column]) => n + nonZero(k.sums[column]!), 0),
  };
};

/** A per-key histogram from the summed rollup buckets at `from` (no `_sum`: the protocol carries counts only). */
const keyHistogram = (name: string, help: string, from: number): KeyFamily => ({
  name,
  type: 'histogram',
  help,
  write(k, out) {
    if (bucketsTotal(k.sums, from) > 0) histogram(out, name, k.labels, k.sums, from, null);
  },
  count: (k) => (bucketsTotal(k.sums, from) > 0 ? HISTOGRAM_SERIES : 0),
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
      for (const s of k.services) out.sample('breakerbox_calls_total', s.labels, s.values[K.calls]!);
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
          const v = s.values[K.errors + i]!;
          if (v > 0) out.sample('breakerbox_failed_calls_total', withLabel(s.labels, 'error_type', ERROR_CLASSES[i]!), v);
        }
      }
    },
    count(k) {
      let n = 0;
      for (const s of k.services) for (let i = 0; i < ERROR_CLASSES.length; i++) n += nonZero(s.values[K.errors + i]!);
      return n;
    },
  },
  {
    name: 'breakerbox_successful_calls_total',
    type: 'counter',
    help: 'Calls that succeeded (slow ones included), per key.',
    write(k, out) {
      if (k.sums[K.calls]! > 0 || k.sums[K.ok]! > 0) out.sample('breakerbox_successful_calls_total', k.labels, k.sums[K.ok]!);
    },
    count: (k) => (k.sums[K.calls]! > 0 || k.sums[K.ok]! > 0 ? 1 : 0),
  },
  sparse('breakerbox_slow_calls_total', "Successful calls slower than the key's latency ceiling, per key.", K.slow),
  sparse('breakerbox_bulkhead_rejected_calls_total', 'Calls the bulkhead refused (never sent), per key.', K.rejected),
  sparse('breakerbox_short_circuited_calls_total', 'Calls refused because the breaker was open (never sent), per key.', K.shortCircuited),
  sparse('breakerbox_retries_total', 'Retries sent (part of calls), per key.', K.retries),
  sparse('breakerbox_cold_excluded_calls_total', 'Calls left out of the breaker statistics as cold starts, per key.', K.coldExcluded),
  sparseBy('breakerbox_half_open_calls_total', 'Trial calls while the breaker was half-open, per key and outcome (ok, failed).', 'outcome', {
    ok: K.halfOpenOk,
    failed: K.halfOpenFailed,
  }),
  sparseBy('breakerbox_tokens_total', 'Tokens per key and token_type (input, output), as gen_ai.token.type.', 'token_type', {
    input: K.inputTokens,
    output: K.outputTokens,
  }),
  sparse('breakerbox_cost_usd_total', 'Spend in USD reported by the clients, per key.', K.cost),
  keyHistogram('breakerbox_call_duration_seconds', 'Call latency per key on the protocol bucket bounds; no _sum (the protocol carries counts only).', K.latency),
  keyHistogram('breakerbox_time_to_first_token_seconds', 'Time to first token of streamed calls per key on the protocol bucket bounds; no _sum.', K.ttft),
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
    help: 'Warm probes per key, location and outcome (ok, slow, error, wrong_answer: answered but missed its canary).',
    write(k, out) {
      for (const p of k.probes) {
        if (p.values[P.probes]! === 0) continue;
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'ok'), p.values[P.ok]!);
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'slow'), p.values[P.slow]!);
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'error'), p.values[P.error]!);
        out.sample('breakerbox_probes_total', withLabel(p.labels, 'outcome', 'wrong_answer'), p.values[P.wrongAnswer]!);
      }
    },
    count: (k) => 4 * k.probes.filter((p) => p.values[P.probes]! > 0).length,
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
        if (p.values[P.probes]! > 0) histogram(out, 'breakerbox_probe_duration_seconds', p.labels, p.values, P.latency, p.values[P.totalMs]! / 1000);
      }
    },
    count: (k) => (HISTOGRAM_SERIES + 1) * k.probes.filter((p) => p.values[P.probes]! > 0).length,
  },
  {
    name: 'breakerbox_probe_cost_usd_total',
    type: 'counter',
    help: 'Spend of the probes in USD, per key and location.',
    write(k, out) {
      for (const p of k.probes) if (p.values[P.cost]! > 0) out.sample('breakerbox_probe_cost_usd_total', p.labels, p.values[P.cost]!);
    },
    count: (k) => k.probes.filter((p) => p.values[P.cost]! > 0).length,
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

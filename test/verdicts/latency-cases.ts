/**
 * Issue 36, "latency is evidence", as telemetry: a provider that slows from ~1 s to 8–20 s and
 * returns no error. Windows, transitions, config and probes are shaped as the SDK and the
 * prober produce them: 10 s windows on the rollup bounds, every slow call over the declared
 * `latency_ceiling_ms` counted `slow` (not `ok`), a full bulkhead rejecting the rest, breakers
 * opening on `slow_calls` and re-opening on `probe_failed` after each slow half-open trial;
 * probes answer `ok` (under the prober's 10 s ceiling) but take ten times their baseline.
 */
import { DEFAULT_LATENCY_BOUNDS_MS, type BreakerKey, type ProbeEvent, type TelemetryEvent, type WindowEvent } from '@breakerbox/protocol';
import { fleet } from './issue-cases.ts';
import { MIN, transition } from './support.ts';

export const LATENCY_CASES = {
  /** The scenario: every client on three services slow, probes slow from both locations. */
  openai: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-11-20' },
  /** The same on the Gemini API. */
  gemini: { provider: 'google', endpoint: 'generate', model: 'gemini-2.5-flash:latency' },
  /** Clients slow, probes slow from eu-west only (us-east at its baseline). */
  oneLocation: { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514' },
  /** The control: clients slow and shedding, probes at their usual latency from both locations. */
  probesFast: { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest:latency' },
  /** A key probed only since the window began (no baseline), its probes over the clients' 5 s ceiling. */
  ceilingOnly: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:new' },
  /** A key probed only since the window began, its probes at 0.7 s: nothing to tell whether that is usual. */
  noBaseline: { provider: 'openai', endpoint: 'responses', model: 'gpt-4.1@new-probe' },
} satisfies Record<string, BreakerKey>;

export const LOCATIONS = ['eu-west', 'us-east'] as const;
export const SERVICES = ['ticket-drafts', 'search', 'billing-bot'] as const;
/** The ceiling the SDK declares for every key of the cases (`latency_ceiling_ms` of its config event). */
export const CLIENT_CEILING_MS = 5000;
/** How much probe history before the window the cases send. */
export const BASELINE_HOURS = 6;
/** The incident starts this long before the window's end (the window is 15 minutes). */
export const ONSET_BEFORE_END = 12 * MIN;

const BOUNDS = [...DEFAULT_LATENCY_BOUNDS_MS];

/** A histogram on the rollup bounds with `n` values at each of `values` (ms). */
function histogram(values: [ms: number, n: number][]): { bounds: number[]; counts: number[] } {
  const counts = new Array<number>(BOUNDS.length + 1).fill(0);
  for (const [ms, n] of values) {
    const i = BOUNDS.findIndex((b) => ms <= b);
    counts[i === -1 ? BOUNDS.length : i]! += n;
  }
  return { bounds: BOUNDS, counts };
}

/** One SDK window: `fast` calls at ~1 s, `slow` calls at 8–20 s (over the ceiling), `rejected` by the bulkhead. */
function window(key: BreakerKey, start: number, w: { fast: number; slow: number; rejected?: number; shortCircuited?: number; halfOpenFailed?: number }): WindowEvent {
  const calls = w.fast + w.slow;
  const slowValues: [number, number][] = [[8500, Math.ceil(w.slow / 2)], [14_000, Math.floor(w.slow / 2)]];
  return {
    type: 'window', start, end: start + 10_000, key,
    calls, ok: w.fast, slow: w.slow, errors: {},
    rejected: w.rejected ?? 0, short_circuited: w.shortCircuited ?? 0, retries: 0, cold_excluded: 0,
    half_open: { ok: 0, failed: w.halfOpenFailed ?? 0 },
    latency_ms: histogram([[800, Math.ceil(w.fast / 2)], [1200, Math.floor(w.fast / 2)], ...slowValues.filter(([, n]) => n > 0)]),
    ttft_ms: histogram([[400, w.fast], [6000, w.slow]]),
    input_tokens: calls * 800, output_tokens: calls * 250, cost_usd: calls * 0.004,
  };
}

/**
 * One instance over `[from, to)`: normal until `onset`; then slow calls fill the bulkhead
 * (5 calls a window, all slow, 12 rejected) until the breaker opens on `slow_calls` 70 s in;
 * from then on it cycles as the SDK's does — half-open after the cooldown (5 s, doubling to
 * 20 s), one slow trial, open again on `probe_failed` — short-circuiting the demand meanwhile.
 */
function instance(key: BreakerKey, from: number, to: number, onset: number): TelemetryEvent[] {
  const events: TelemetryEvent[] = [
    transition(key, from - 30 * MIN, null, 'closed', 'created'),
    { type: 'config', ts: from - 30 * MIN, key, settings: { latency_ceiling_ms: CLIENT_CEILING_MS, max_concurrent: 4, max_queue: 0, slow_threshold: 0.5, min_calls: 20, cooldown_ms: 5000, max_cooldown_ms: 20_000 }, fallbacks: [], warnings: [] },
  ];
  const openAt = onset + 70_000;
  let cooldown = 5000;
  let ts = openAt;
  events.push({ ...transition(key, openAt, 'closed', 'open', 'slow_calls'), cooldown_ms: cooldown, attempt: 1, rates: { error: 0, slow: 1 } });
  const trials: number[] = [];
  for (let attempt = 2; ; attempt++) {
    const half = ts + cooldown;
    const reopen = half + 11_000; // the trial call took 11 s
    if (reopen >= to) break;
    cooldown = Math.min(20_000, cooldown * 2);
    events.push(transition(key, half, 'open', 'half_open', 'cooldown_elapsed'));
    events.push({ ...transition(key, reopen, 'half_open', 'open', 'probe_failed'), cooldown_ms: cooldown, attempt });
    trials.push(reopen);
    ts = reopen;
  }
  for (let start = from; start + 10_000 <= to; start += 10_000) {
    if (start + 10_000 <= onset) events.push(window(key, start, { fast: 8, slow: 0 }));
    else if (start < openAt) events.push(window(key, start, { fast: 0, slow: 5, rejected: 12 }));
    else {
      const trial = trials.filter((r) => r >= start && r < start + 10_000).length;
      events.push(window(key, start, { fast: 0, slow: trial, halfOpenFailed: trial, shortCircuited: 8 - trial }));
    }
  }
  return events;
}

/** One probe a minute from `location` over `[from, to)` taking `ms` (the prober's ceiling is 10 s: `ok`). */
function probeRun(key: BreakerKey, location: string, from: number, to: number, ms: (ts: number) => number): ProbeEvent[] {
  const out: ProbeEvent[] = [];
  for (let ts = from + 7_000; ts < to; ts += MIN) {
    const total = ms(ts);
    out.push({ type: 'probe', ts, key, location, outcome: total > 10_000 ? 'slow' : 'ok', latency_ms: { connect: 25, ttfb: Math.round(total * 0.6), total } });
  }
  return out;
}

/** The usual probe latency of the cases' keys: 0.6–0.8 s. */
const usual = (ts: number) => 600 + ((ts / MIN) % 5) * 50;
/** During the incident: 6–7.5 s. */
const incident = (ts: number) => 6000 + ((ts / MIN) % 4) * 500;

/**
 * Every case in one collector, window `[to − 15 min, to)`: clients on three services × two
 * instances; probes from both locations for `BASELINE_HOURS` before the window at their usual
 * latency, then through the window (slow from the onset where the case says so).
 */
export function latencyCases(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const onset = to - ONSET_BEFORE_END;
  const f = fleet();
  const slowFrom = (locations: readonly string[]) => (location: string) => (ts: number) => (locations.includes(location) && ts >= onset ? incident(ts) : usual(ts));
  const history = from - BASELINE_HOURS * 60 * MIN;
  const cases: [BreakerKey, (location: string) => (ts: number) => number, number][] = [
    [LATENCY_CASES.openai, slowFrom(LOCATIONS), history],
    [LATENCY_CASES.gemini, slowFrom(LOCATIONS), history],
    [LATENCY_CASES.oneLocation, slowFrom(['eu-west']), history],
    [LATENCY_CASES.probesFast, slowFrom([]), history],
    [LATENCY_CASES.ceilingOnly, slowFrom(LOCATIONS), from],
    [LATENCY_CASES.noBaseline, slowFrom([]), from],
  ];
  for (const [key, ms, probedFrom] of cases) {
    for (const service of SERVICES) for (const pod of ['pod-1', 'pod-2']) f.add(service, pod, instance(key, from, to, onset));
    for (const location of LOCATIONS) f.add('prober', location, probeRun(key, location, probedFrom, to, ms(location)));
  }
  return f;
}

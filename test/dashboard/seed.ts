import type { BreakerKey, ProbeEvent, TelemetryEvent, TransitionEvent, WindowEvent } from '@breakerbox/protocol';
import type { TestCollector } from './server-harness.ts';

const MINUTE = 60_000;
const BOUNDS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];

/** The keys of the seeded incident, one per verdict the board must tell apart. */
export const KEYS = {
  outage: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' },
  healthy: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' },
  selfInflicted: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' },
  quiet: { provider: 'openai', endpoint: 'chat', model: 'ft:gpt-4o-mini:acme:triage:9xYz' },
} satisfies Record<string, BreakerKey>;

/** A one-minute window ending `endAgoMin` minutes ago. */
export function window(key: BreakerKey, endAgoMin: number, now: number, f: { calls: number; errors?: Record<string, number>; slow?: number; rejected?: number; retries?: number; fast?: boolean }): WindowEvent {
  const end = now - endAgoMin * MINUTE - 1000;
  const failed = Object.values(f.errors ?? {}).reduce((a, b) => a + b, 0);
  const ok = f.calls - failed - (f.slow ?? 0);
  // Latency spread over a few buckets so percentiles move: fast keys ~100-250 ms, slow ones seconds.
  const counts = new Array(BOUNDS.length + 1).fill(0);
  const base = f.fast === false ? 6 : 2;
  counts[base] = Math.ceil(f.calls * 0.6);
  counts[base + 1] = Math.floor(f.calls * 0.3);
  counts[base + 2] = f.calls - counts[base] - counts[base + 1];
  return {
    type: 'window', start: end - MINUTE, end, key, calls: f.calls, ok, slow: f.slow ?? 0, errors: f.errors ?? {},
    rejected: f.rejected ?? 0, short_circuited: 0, retries: f.retries ?? 0, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: BOUNDS, counts }, ttft_ms: { bounds: BOUNDS, counts },
    input_tokens: f.calls * 400, output_tokens: f.calls * 60, cost_usd: f.calls * 0.0004,
  };
}

/** A probe result `agoMin` minutes ago from `location`. */
export function probe(key: BreakerKey, agoMin: number, now: number, location: string, ok: boolean): ProbeEvent {
  return ok
    ? { type: 'probe', ts: now - agoMin * MINUTE - 2000, key, location, outcome: 'ok', status: 200, latency_ms: { connect: 20, ttfb: 300, total: 340 } }
    : { type: 'probe', ts: now - agoMin * MINUTE - 2000, key, location, outcome: 'error', error_class: 'server', status: 503, latency_ms: { connect: 20, ttfb: 90, total: 95 } };
}

/** A breaker transition `agoMin` minutes ago. */
export function transition(key: BreakerKey, agoMin: number, now: number, from: TransitionEvent['from'], to: TransitionEvent['to'], reason: TransitionEvent['reason']): TransitionEvent {
  return { type: 'transition', ts: now - agoMin * MINUTE - 500, key, from, to, reason };
}

/**
 * Thirty minutes of an incident: the Together key failing for clients and probes alike
 * (its breaker open for the last 12 minutes), a healthy OpenAI key, an Anthropic key our
 * own bad credentials break while probes are fine, and a fine-tuned model with a trickle
 * of calls. Tasks give the cost view something to draw.
 */
export function incident(now: number): TelemetryEvent[] {
  const events: TelemetryEvent[] = [];
  events.push(transition(KEYS.outage, 29, now, null, 'closed', 'created'), transition(KEYS.healthy, 29, now, null, 'closed', 'created'));
  events.push(transition(KEYS.selfInflicted, 29, now, null, 'closed', 'created'));
  events.push(transition(KEYS.outage, 12, now, 'closed', 'open', 'error_rate'));
  events.push({
    type: 'config', ts: now - 29 * MINUTE, key: KEYS.outage,
    settings: { latency_ceiling_ms: 8000, max_concurrent: 32, error_threshold: 0.5 },
    fallbacks: [KEYS.healthy], warnings: [],
  });
  for (let m = 0; m < 30; m++) {
    const failing = m < 14;
    events.push(window(KEYS.outage, m, now, { calls: 60, errors: failing ? { server: 30, timeout: 6 } : { server: 1 }, slow: failing ? 4 : 0, retries: failing ? 10 : 1 }));
    events.push(window(KEYS.healthy, m, now, { calls: 80, errors: m % 7 === 0 ? { rate_limit: 1 } : {} }));
    events.push(window(KEYS.selfInflicted, m, now, { calls: 50, errors: { auth: 40 } }));
    if (m % 10 === 0) events.push(window(KEYS.quiet, m, now, { calls: 2 }));
    for (const location of ['eu-west', 'us-east']) {
      events.push(probe(KEYS.outage, m, now, location, !failing));
      events.push(probe(KEYS.healthy, m, now, location, true));
      events.push(probe(KEYS.selfInflicted, m, now, location, true));
    }
    events.push({
      type: 'tasks', start: now - m * MINUTE - MINUTE - 1000, end: now - m * MINUTE - 1000, operation: 'draft-reply',
      completed: 40, failed: failing ? 3 : 0, degraded: failing ? 2 : 0, attempts: failing ? 60 : 42, cost_usd: failing ? 0.9 : 0.4,
      levels: failing ? { '0': 20, '1': 18, '4': 2 } : { '0': 40 }, fallback: { invoked: failing ? 20 : 0, failed: failing ? 1 : 0 },
    });
  }
  return events;
}

/** `n` distinct keys, each with a few windows and probes, for the render budget. */
export function manyKeys(n: number, now: number): TelemetryEvent[] {
  const events: TelemetryEvent[] = [];
  for (let i = 0; i < n; i++) {
    const key: BreakerKey = { provider: ['openai', 'anthropic', 'together', 'mistral'][i % 4]!, endpoint: 'chat', model: `org-${i % 17}/model-${i}:v${i % 3}`, region: i % 2 ? 'eu-west' : 'us-east' };
    const bad = i % 9 === 0;
    events.push(transition(key, 10, now, null, bad ? 'open' : 'closed', bad ? 'error_rate' : 'created'));
    for (let m = 0; m < 3; m++) events.push(window(key, m, now, { calls: 40, errors: bad ? { server: 20 } : {} }));
    for (let m = 0; m < 4; m++) events.push(probe(key, m, now, 'eu-west', !(bad && i % 2 === 0)));
  }
  return events;
}

/** Sends `incident(now)` through ingest: client events from the app, probe results from one prober per location. */
export async function ingestIncident(collector: TestCollector, now = Date.now()): Promise<void> {
  const events = incident(now);
  await collector.ingest(events.filter((e) => e.type !== 'probe'));
  for (const location of ['eu-west', 'us-east']) {
    await collector.ingest(events.filter((e) => e.type === 'probe' && e.location === location), { service: 'prober', instance: location });
  }
}

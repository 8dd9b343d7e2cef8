/**
 * The incidents of issue 15 as telemetry: each case is the events that reproduce it, sent
 * through the real ingest endpoint by the tests (and replayed on the old code to record the
 * verdict before the change). Model ids carry `/`, `:` and `@` on purpose.
 */
import type { BreakerKey, ProbeEvent, TasksEvent, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, probes, transition, windows, type TestCollector } from './support.ts';

/** Events per (service, instance). */
export type Fleet = Map<string, { service: string; instance: string; events: TelemetryEvent[] }>;

/** Collects events per instance and sends them in one go. */
export function fleet(): { add(service: string, instance: string, events: TelemetryEvent[]): void; send(c: TestCollector): Promise<void> } {
  const by: Fleet = new Map();
  return {
    add(service, instance, events) {
      const id = `${service}\u0000${instance}`;
      let entry = by.get(id);
      if (!entry) by.set(id, (entry = { service, instance, events: [] }));
      entry.events.push(...events);
    },
    async send(c) {
      for (const { service, instance, events } of by.values()) await c.send({ service, instance }, events);
    },
  };
}

export const CASES = {
  /** Provider 5xx spread over 3 services × 3 instances; 10 clean probes a location. */
  spread5xx: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' },
  /** The demo's flapping phase: bursts of provider errors that the probes catch 20% of the time. */
  flapping: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' },
  /** Probe-only: a fallback nobody calls yet, failing from every location. */
  fallback: { provider: 'together', endpoint: 'chat', model: 'Qwen/Qwen2.5-7B-Instruct:fallback' },
  /** A fallback that only saw the first few failovers, failing from every location. */
  fallbackFew: { provider: 'fireworks', endpoint: 'chat', model: 'accounts/fireworks/models/qwen3:fallback@2' },
  /** 60% of answers cut by max_tokens. */
  truncated: { provider: 'openai', endpoint: 'chat', model: 'ft:gpt-4o-mini:acme:summaries@v2' },
  /** An SDK key named after host:port and the same model probed as `vllm`. */
  hostPort: { provider: '10.1.2.3:8000', endpoint: 'chat', model: 'meta-llama/Llama-3.1-8B-Instruct' },
  hostPortProbed: { provider: 'vllm', endpoint: 'chat', model: 'meta-llama/Llama-3.1-8B-Instruct' },
} satisfies Record<string, BreakerKey>;

/** Keys of four providers probed from a location whose own network is down. */
export const PROBER_KEYS: BreakerKey[] = [
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1-mini' },
  { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-large' },
  { provider: 'anthropic', endpoint: 'messages', model: 'claude-opus-4@20250514' },
  { provider: 'together', endpoint: 'chat', model: 'deepseek-ai/DeepSeek-R1:throughput' },
  { provider: 'mistral', endpoint: 'chat', model: 'codestral-latest' },
  { provider: 'mistral', endpoint: 'embeddings', model: 'mistral-embed' },
];

const served = (key: BreakerKey, location: string, from: number, to: number) => probes(key, location, from, to, 'ok');
const failing = (key: BreakerKey, location: string, from: number, to: number, extra: Partial<ProbeEvent> = { error_class: 'server', status: 503 }) =>
  probes(key, location, from, to, 'error', extra);

/**
 * Case 1, 2, 4, 5, 8: one collector, one 15-minute window ending at `to`. `prober` adds
 * case 3 (the location `ap-south` whose host lost its network) when true.
 */
export function verdictCases(to: number, options: { prober?: boolean } = {}): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  // 1. 20% server errors everywhere, evenly: 3 services × 3 instances; ten probes a location, all served.
  for (const service of ['ticket-drafts', 'search', 'billing-bot']) {
    for (const pod of ['pod-1', 'pod-2', 'pod-3']) f.add(service, pod, windows(CASES.spread5xx, from, to, { calls: 10, errors: { server: 2 } }));
  }
  for (const location of ['eu-west', 'us-east']) f.add('prober', location, served(CASES.spread5xx, location, to - 10 * MIN, to));

  // 2. Bursty provider errors: clients fail 25%, probes from each location fail 8 of 40 (every fifth).
  for (const pod of ['pod-1', 'pod-2']) f.add('ticket-drafts', pod, windows(CASES.flapping, from, to, { calls: 12, errors: { server: 3 } }));
  for (const location of ['eu-west', 'us-east']) {
    const list: ProbeEvent[] = [];
    for (let i = 0; i < 40; i++) {
      const ts = from + 20_000 + i * 20_000;
      list.push(
        i % 5 === 4
          ? { type: 'probe', ts, key: CASES.flapping, location, outcome: 'error', error_class: 'server', status: 529, latency_ms: { connect: 20, ttfb: 200, total: 300 } }
          : { type: 'probe', ts, key: CASES.flapping, location, outcome: 'ok', latency_ms: { connect: 20, ttfb: 200, total: 350 } },
      );
    }
    f.add('prober', location, list);
  }

  // 4. A fallback model nobody calls, failing from every location.
  for (const location of ['eu-west', 'us-east']) f.add('prober', location, failing(CASES.fallback, location, from, to));

  // 4b. The same with the first three failovers arriving: too few calls to judge the clients.
  f.add('ticket-drafts', 'pod-1', windows(CASES.fallbackFew, to - 3 * MIN, to, { calls: 1, errors: { server: 1 } }, 60_000));
  for (const location of ['eu-west', 'us-east']) f.add('prober', location, failing(CASES.fallbackFew, location, from, to));

  // 5. 60% of answers end with finish_reason length.
  f.add('ticket-drafts', 'pod-1', windows(CASES.truncated, from, to, { calls: 10, errors: { truncated: 6 } }));
  for (const location of ['eu-west', 'us-east']) f.add('prober', location, served(CASES.truncated, location, from, to));

  // 8. A key reported under host:port, probed as vllm.
  f.add('ticket-drafts', 'pod-1', windows(CASES.hostPort, from, to, { calls: 10 }));
  for (const location of ['eu-west', 'us-east']) f.add('prober', location, served(CASES.hostPortProbed, location, from, to));

  if (options.prober) {
    // 3. ap-south's host lost its network: every key of four providers fails there with network
    // errors; eu-west serves them all and the clients are healthy everywhere.
    for (const key of PROBER_KEYS) {
      f.add('ticket-drafts', 'pod-1', windows(key, from, to, { calls: 10 }));
      f.add('prober', 'ap-south', failing(key, 'ap-south', from, to, { error_class: 'network' }));
      f.add('prober', 'eu-west', served(key, 'eu-west', from, to));
    }
  }
  return f;
}

/** The four keys of a newcomer's setup, all open; only the first two have fallbacks. */
export const NEWCOMER = {
  withChainFailing: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o:primary' },
  withChainFine: { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-small@primary' },
  bare1: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-7-sonnet@20250219' },
  bare2: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B:bare' },
  fallback1: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@fallback' },
  fallback2: { provider: 'together', endpoint: 'embeddings', model: 'BAAI/bge-large@fallback' },
} satisfies Record<string, BreakerKey>;

/**
 * Case 6: all four keys open for the last 5 minutes; the `draft` operation's chain (primary
 * `withChainFailing`) fails over and its fallback fails. `keyed` sends the primary key on
 * the tasks events (new senders); without it, the collector has only the config events.
 */
export function fallbackCase(to: number, keyed: boolean): ReturnType<typeof fleet> {
  const from = to - 10 * MIN;
  const f = fleet();
  const keys = [NEWCOMER.withChainFailing, NEWCOMER.withChainFine, NEWCOMER.bare1, NEWCOMER.bare2];
  const events: TelemetryEvent[] = [];
  for (const key of keys) {
    events.push(transition(key, from - MIN, null, 'closed', 'created'));
    events.push(...windows(key, from, to, { calls: 10, errors: { server: 6 } }));
    events.push(transition(key, to - 5 * MIN, 'closed', 'open'));
  }
  const config = (key: BreakerKey, fallbacks: BreakerKey[]) => ({ type: 'config' as const, ts: from - MIN, key, settings: { min_calls: 20 }, fallbacks, warnings: [] });
  events.push(config(NEWCOMER.withChainFailing, [NEWCOMER.fallback1]), config(NEWCOMER.withChainFine, [NEWCOMER.fallback2]), config(NEWCOMER.bare1, []), config(NEWCOMER.bare2, []));
  for (let start = to - 4 * MIN; start < to; start += MIN) {
    const draft: TasksEvent = {
      type: 'tasks', start, end: start + MIN, operation: 'draft', completed: 2, failed: 3, degraded: 0, attempts: 10, cost_usd: 0.01,
      levels: { '0': 0, '1': 2 }, fallback: { invoked: 5, failed: 3 },
    };
    const embed: TasksEvent = {
      type: 'tasks', start, end: start + MIN, operation: 'embed', completed: 5, failed: 0, degraded: 0, attempts: 10, cost_usd: 0.001,
      levels: { '1': 5 }, fallback: { invoked: 5, failed: 0 },
    };
    events.push(keyed ? { ...draft, key: NEWCOMER.withChainFailing } : draft, keyed ? { ...embed, key: NEWCOMER.withChainFine } : embed);
  }
  f.add('newcomer', 'pod-1', events);
  return f;
}

/**
 * Issue 36, "judge each service": one service of a key failing hard while the key's other
 * callers are fine and dilute its totals below the degraded threshold. Each case is the
 * events that reproduce it (SDK-shaped 10 s windows per instance, a probe a minute per
 * location), sent through the real ingest endpoint by service-cases.test.ts.
 */
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { fleet } from './issue-cases.ts';
import { MIN, probes, windows } from './support.ts';

export const SERVICE_CASES = {
  /** marketing-copy's prompt changed 10 minutes ago: half its calls refused (`policy`) since; chat-ui and search fine. */
  policy: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-11-20' },
  /** drafts' API key rotated 6 minutes ago: every call `auth` (401) since; summaries fine on the same key. */
  auth: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-7-sonnet@20250219' },
  /** The provider's EU edge fails: eu-assistant (in eu-west) and the eu-west probes fail, us-* services and us-east probes fine. */
  regional: { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-2411' },
  /** Two services failing for causes of their own (quota, context length) beside a healthy big caller. */
  two: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:svc' },
} satisfies Record<string, BreakerKey>;

const LOCATIONS = ['eu-west', 'us-east'];
const failingProbes = (key: BreakerKey, location: string, from: number, to: number) =>
  probes(key, location, from, to, 'error', { error_class: 'server', status: 503 } satisfies Partial<ProbeEvent>);

/**
 * Policy refusals on one of three services: marketing-copy (2 pods, 4 calls a window) fine
 * for 5 minutes, then 2 of 4 refused; chat-ui (2 pods) and search (1 pod), 6 calls a window,
 * never fail. Over 15 min: marketing-copy 240 of 720 (33 %), the key 240 of 2,340 (10 %).
 */
export function policyCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const changed = to - 10 * MIN;
  const f = fleet();
  const K = SERVICE_CASES.policy;
  for (const pod of ['pod-1', 'pod-2']) {
    f.add('marketing-copy', pod, [...windows(K, from, changed, { calls: 4 }), ...windows(K, changed, to, { calls: 4, errors: { policy: 2 } })]);
    f.add('chat-ui', pod, windows(K, from, to, { calls: 6 }));
  }
  f.add('search', 'pod-1', windows(K, from, to, { calls: 6 }));
  for (const location of LOCATIONS) f.add('prober', location, probes(K, location, from, to, 'ok'));
  return f;
}

/**
 * A rotated key on one of two services: drafts (1 pod, 3 calls a window) fails every call
 * with auth for the last 6 minutes; summaries (2 pods, 4 calls a window) fine. Only us-east
 * probes the key. Over 15 min: drafts 108 of 270 (40 %), the key 108 of 990 (11 %).
 */
export function authCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const rotated = to - 6 * MIN;
  const f = fleet();
  const K = SERVICE_CASES.auth;
  f.add('drafts', 'pod-1', [...windows(K, from, rotated, { calls: 3 }), ...windows(K, rotated, to, { calls: 3, errors: { auth: 3 } })]);
  for (const pod of ['pod-1', 'pod-2']) f.add('summaries', pod, windows(K, from, to, { calls: 4 }));
  f.add('prober', 'us-east', probes(K, 'us-east', from, to, 'ok'));
  return f;
}

/**
 * The provider failing in one region only, felt by the one service that calls it from
 * there: eu-assistant (2 pods, 5 calls a window) fails 2 of 5 with server errors (503),
 * like the eu-west probes (every one fails); us-search and us-drafts (5 calls a window
 * each, 2 pods) never fail, nor do the us-east probes. Over 15 min: eu-assistant 360 of
 * 900 (40 %), the key 360 of 2,700 (13 %).
 */
export function regionalCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  const K = SERVICE_CASES.regional;
  for (const pod of ['pod-1', 'pod-2']) {
    f.add('eu-assistant', pod, windows(K, from, to, { calls: 5, errors: { server: 2 } }));
    f.add('us-search', pod, windows(K, from, to, { calls: 5 }));
    f.add('us-drafts', pod, windows(K, from, to, { calls: 5 }));
  }
  f.add('prober', 'eu-west', failingProbes(K, 'eu-west', from, to));
  f.add('prober', 'us-east', probes(K, 'us-east', from, to, 'ok'));
  return f;
}

/**
 * Two services degraded with different causes: billing-bot (1 pod, 2 calls a window) fails
 * every call on its exhausted quota; ocr (1 pod, 4 calls a window) 1 of 4 on context length;
 * assistant (3 pods, 10 calls a window) fine. Over 15 min: billing-bot 180 of 180 (100 %),
 * ocr 90 of 360 (25 %), the key 270 of 3,240 (8 %).
 */
export function twoCausesCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  const K = SERVICE_CASES.two;
  f.add('billing-bot', 'pod-1', windows(K, from, to, { calls: 2, errors: { quota: 2 } }));
  f.add('ocr', 'pod-1', windows(K, from, to, { calls: 4, errors: { context_length: 1 } }));
  for (const pod of ['pod-1', 'pod-2', 'pod-3']) f.add('assistant', pod, windows(K, from, to, { calls: 10 }));
  for (const location of LOCATIONS) f.add('prober', location, probes(K, location, from, to, 'ok'));
  return f;
}

/**
 * The incidents of issue 23 as telemetry, built on the same harness as issue 15's
 * (`fleet` from issue-cases.ts, `windows`/`probes`/`transition` from support.ts): each case
 * is the events that reproduce it, sent through `POST /v1/telemetry` by the tests.
 */
import type { BreakerKey, TelemetryEvent, TransitionEvent } from '@breakerbox/protocol';
import { Breaker, PASS, PASS_PROBE } from '../../sdk/policies/breaker.ts';
import { DEFAULT_BREAKER_OPTIONS } from '../../sdk/policies/breaker-options.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { fleet } from './issue-cases.ts';
import { MIN, probes, transition, windows } from './support.ts';

export const CASES_23 = {
  /** A model nobody probes, failing with server errors; the provider's other two models fail every probe. */
  unprobed: { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest' },
  siblingChat: { provider: 'mistral', endpoint: 'chat', model: 'codestral-latest' },
  siblingEmbed: { provider: 'mistral', endpoint: 'embeddings', model: 'mistral-embed' },
  /** 401s on every call of one service for the last 7 minutes; no probe covers the key. */
  auth: { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514' },
  /** `insufficient_quota` on every call of billing-svc for 8 minutes; other-svc calls the same key fine. */
  quota: { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1@2025-04-14' },
  /** A provider down for an hour; breakers re-open after each failed half-open call. */
  outage: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
  /** Probed from two locations until 18 minutes ago, then nothing. */
  silent: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini@2024-07-18' },
} satisfies Record<string, BreakerKey>;

const LOCATIONS = ['eu-west', 'us-east'];

/** Case 1: mistral-large fails 47% with `server` on 2 services × 2 instances, every breaker open; its siblings fail every probe. */
export function unprobedCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  for (const service of ['assistant', 'search']) {
    for (const pod of ['pod-1', 'pod-2']) {
      f.add(service, pod, [
        transition(CASES_23.unprobed, from - MIN, null, 'closed', 'created'),
        ...windows(CASES_23.unprobed, from, to, { calls: 15, errors: { server: 7 } }),
        transition(CASES_23.unprobed, from + 2 * MIN, 'closed', 'open'),
      ]);
    }
  }
  for (const location of LOCATIONS) {
    for (const key of [CASES_23.siblingChat, CASES_23.siblingEmbed]) f.add('prober', location, probes(key, location, from, to, 'error', { error_class: 'server', status: 503 }));
  }
  return f;
}

/** Case 2: drafts' calls are fine for 8 minutes, then every one fails with 401 for 7. */
export function authCase(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  for (const pod of ['pod-1', 'pod-2']) {
    f.add('drafts', pod, [
      ...windows(CASES_23.auth, from, to - 7 * MIN, { calls: 10 }),
      ...windows(CASES_23.auth, to - 7 * MIN, to, { calls: 10, errors: { auth: 10 } }),
    ]);
  }
  return f;
}

/**
 * Case 3: billing-svc fails every call with quota for the last 8 minutes; other-svc calls
 * the same key without a failure (`otherCalls` per window: 10 as in the incident, 100 to
 * dilute the key's totals below the degraded threshold). Both locations serve the probes.
 */
export function quotaCase(to: number, otherCalls = 10): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  f.add('billing-svc', 'pod-1', [
    ...windows(CASES_23.quota, from, to - 8 * MIN, { calls: 10 }),
    ...windows(CASES_23.quota, to - 8 * MIN, to, { calls: 10, errors: { quota: 10 } }),
  ]);
  f.add('other-svc', 'pod-1', windows(CASES_23.quota, from, to, { calls: otherCalls }));
  for (const location of LOCATIONS) f.add('prober', location, probes(CASES_23.quota, location, from, to, 'ok'));
  return f;
}

/**
 * The transitions of a real SDK breaker with the default options (cooldown 5 s doubling to
 * 20 s, jitter included) whose every call fails for `ms`, one call a second from `from`.
 */
export async function sdkOutageTransitions(key: BreakerKey, from: number, ms: number, seed: number): Promise<TransitionEvent[]> {
  const clock = new ManualClock(from);
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const b = new Breaker(key, DEFAULT_BREAKER_OPTIONS, clock, random);
  const out: TransitionEvent[] = [];
  b.onStateChange((t) => out.push({ type: 'transition', ts: t.ts, key, from: t.from, to: t.to, reason: t.reason }));
  b.announce();
  for (let t = 0; t < ms; t += 1000) {
    const pass = b.tryPass(clock.now());
    if (pass === PASS || pass === PASS_PROBE) b.record(clock.now(), 'server', false, pass === PASS_PROBE, false);
    await clock.advance(1000);
  }
  return out;
}

/** Case 4: an hour-long outage on 2 instances at the SDK's default cooldowns; probes fail from both locations. */
export async function outageCase(to: number): Promise<{ fleet: ReturnType<typeof fleet>; transitions: TransitionEvent[] }> {
  const from = to - 60 * MIN;
  const f = fleet();
  const all: TransitionEvent[] = [];
  for (const [i, pod] of ['pod-1', 'pod-2'].entries()) {
    const transitions = await sdkOutageTransitions(CASES_23.outage, from, 60 * MIN, 7 + i);
    all.push(...transitions);
    f.add('chat-svc', pod, [...transitions, ...windows(CASES_23.outage, from, to, { calls: 1, errors: { server: 1 }, short_circuited: 9 })]);
  }
  for (const location of LOCATIONS) f.add('prober', location, probes(CASES_23.outage, location, from, to, 'error', { error_class: 'server', status: 503 }));
  return { fleet: f, transitions: all };
}

/** Case 5: clients fine; both locations probed the key once a minute until 18 minutes ago. */
export function silentCase(to: number): ReturnType<typeof fleet> {
  const from = to - 60 * MIN;
  const f = fleet();
  f.add('drafts', 'pod-1', windows(CASES_23.silent, to - 15 * MIN, to, { calls: 10 }));
  for (const location of LOCATIONS) f.add('prober', location, probes(CASES_23.silent, location, from, to - 18 * MIN, 'ok'));
  return f;
}

/** Probes of the silent case's locations again, for the minutes `[from, to)`. */
export function silentResumes(from: number, to: number): { location: string; events: TelemetryEvent[] }[] {
  return LOCATIONS.map((location) => ({ location, events: probes(CASES_23.silent, location, from, to, 'ok') }));
}

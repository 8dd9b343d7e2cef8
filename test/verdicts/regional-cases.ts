/**
 * Issue 36's regional principle as telemetry: probes from several locations that fail at the
 * same random rate (split ~60/40 by chance), true regional outages, and a location pair with
 * too few probes to tell. One scheduled probe a minute per location, as the prober sends
 * them; client windows as the SDK builds them (ten-second windows, final failures by class,
 * retries counted apart). Each pattern lists one 15-minute window's probes, oldest first:
 * `x` failed, `.` served.
 */
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { fleet } from './issue-cases.ts';
import { MIN, windows } from './support.ts';

export const REGIONAL = {
  /** Anthropic answering 529 overloaded_error to half of all requests, from two locations. */
  anthropicTwo: { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514' },
  /** The same over three locations. */
  anthropicThree: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' },
  /** OpenAI answering 503 "The server is overloaded" (server_error) to half of all requests, two locations. */
  openaiTwo: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' },
  /** The same over three locations. */
  openaiThree: { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1-mini' },
  /** Mistral down in eu-west only (503 from every probe there), served from us-east; the clients, in eu-west, fail. */
  mistralEu: { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest' },
  /** Gemini timing out from ap-south only (9 of the last 10), served from eu-west and us-east; the clients there are fine. */
  geminiAp: { provider: 'google', endpoint: 'generate', model: 'gemini-2.5-flash' },
  /** Together failing from eu-west since 3 minutes ago (12 served, then 3 failed), served from us-east; clients not hit yet. */
  togetherOnset: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
  /** A key the prober began covering 3 minutes ago: 3 of 3 failed from eu-west, 3 of 3 served from us-east. */
  fewProbes: { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-large' },
} satisfies Record<string, BreakerKey>;

/** A provider error as the prober reports it. */
type Failure = Pick<ProbeEvent, 'error_class' | 'status' | 'error_type' | 'message'>;

const OVERLOADED_529: Failure = { error_class: 'server', status: 529, error_type: 'overloaded_error', message: 'Overloaded' };
const OVERLOADED_503: Failure = { error_class: 'server', status: 503, error_type: 'server_error', message: 'The server is overloaded or not ready yet.' };
const DOWN_503: Failure = { error_class: 'server', status: 503, error_type: 'service_unavailable', message: 'Service unavailable' };
const TIMEOUT: Failure = { error_class: 'timeout' };

/** One probe a minute following `pattern` (oldest first), ending one minute before `to`. */
export function patterned(key: BreakerKey, location: string, to: number, pattern: string, failure: Failure): ProbeEvent[] {
  const from = to - pattern.length * MIN;
  return [...pattern].map((c, i): ProbeEvent => {
    const ts = from + i * MIN + 5_000;
    return c === 'x'
      ? { type: 'probe', ts, key, location, outcome: 'error', ...failure, latency_ms: { connect: 20, ttfb: failure.error_class === 'timeout' ? 30_000 : 240, total: failure.error_class === 'timeout' ? 30_000 : 260 } }
      : { type: 'probe', ts, key, location, outcome: 'ok', latency_ms: { connect: 20, ttfb: 300, total: 900 } };
  });
}

/**
 * 50 % random failures, 15 probes a location: the last ten hold 6 failures at eu-west
 * (status failing: above `probe_failing_share` 0.5), 4 at us-east and 5 at ap-south (ok).
 */
export const RANDOM_HALF = {
  'eu-west': 'x.xx.' + 'x.xx.x.xx.',
  'us-east': '.x.x.' + '.x..x.x.x.',
  'ap-south': 'x.x..' + 'x..xx.x.x.',
} as const;

/** Every case in one 15-minute window ending at `to`. */
export function regionalCases(to: number): ReturnType<typeof fleet> {
  const from = to - 15 * MIN;
  const f = fleet();
  // Half the attempts fail; one retry in five calls rescues some: 4 of 10 calls end failed,
  // under the SDK breaker's 0.5 error threshold, so the breakers stay closed.
  const halfFailing = { calls: 10, errors: { server: 4 }, retries: 2, latencyMs: 900 };
  const random: [BreakerKey, Failure, (keyof typeof RANDOM_HALF)[]][] = [
    [REGIONAL.anthropicTwo, OVERLOADED_529, ['eu-west', 'us-east']],
    [REGIONAL.anthropicThree, OVERLOADED_529, ['eu-west', 'us-east', 'ap-south']],
    [REGIONAL.openaiTwo, OVERLOADED_503, ['eu-west', 'us-east']],
    [REGIONAL.openaiThree, OVERLOADED_503, ['eu-west', 'us-east', 'ap-south']],
  ];
  for (const [key, failure, locations] of random) {
    for (const pod of ['pod-1', 'pod-2']) f.add('support-bot', pod, windows(key, from, to, halfFailing));
    for (const l of locations) f.add('prober', l, patterned(key, l, to, RANDOM_HALF[l], failure));
  }

  // Mistral down in eu-west: every probe there fails, none from us-east; the clients (in eu-west) fail 40 %.
  for (const pod of ['pod-1', 'pod-2']) f.add('ticket-drafts', pod, windows(REGIONAL.mistralEu, from, to, { calls: 10, errors: { server: 4 }, retries: 1 }));
  f.add('prober', 'eu-west', patterned(REGIONAL.mistralEu, 'eu-west', to, 'x'.repeat(15), DOWN_503));
  f.add('prober', 'us-east', patterned(REGIONAL.mistralEu, 'us-east', to, '.'.repeat(15), DOWN_503));

  // Gemini timing out from ap-south (9 of the last 10), the others served (1 timeout at eu-west); clients fine.
  f.add('search', 'pod-1', windows(REGIONAL.geminiAp, from, to, { calls: 10, latencyMs: 800 }));
  f.add('prober', 'ap-south', patterned(REGIONAL.geminiAp, 'ap-south', to, '.....' + 'xxxx.xxxxx', TIMEOUT));
  f.add('prober', 'eu-west', patterned(REGIONAL.geminiAp, 'eu-west', to, '.....' + '...x......', TIMEOUT));
  f.add('prober', 'us-east', patterned(REGIONAL.geminiAp, 'us-east', to, '.....' + '..........', TIMEOUT));

  // An outage beginning in eu-west: its last three probes failed, the seven before served.
  f.add('support-bot', 'pod-1', windows(REGIONAL.togetherOnset, from, to, { calls: 10 }));
  f.add('prober', 'eu-west', patterned(REGIONAL.togetherOnset, 'eu-west', to, '.'.repeat(12) + 'xxx', DOWN_503));
  f.add('prober', 'us-east', patterned(REGIONAL.togetherOnset, 'us-east', to, '.'.repeat(15), DOWN_503));

  // Newly probed: three probes a location so far; the clients fail 30 % with 503s.
  for (const pod of ['pod-1', 'pod-2']) f.add('search', pod, windows(REGIONAL.fewProbes, from, to, { calls: 10, errors: { server: 3 } }));
  f.add('prober', 'eu-west', patterned(REGIONAL.fewProbes, 'eu-west', to, 'xxx', DOWN_503));
  f.add('prober', 'us-east', patterned(REGIONAL.fewProbes, 'us-east', to, '...', DOWN_503));
  return f;
}

/**
 * The candidate's side of a mirrored request (shadow traffic, issue 28): one plain attempt
 * through the same HTTP path as the caller's (`sendAttempt`: the same answer checks and
 * classification), outside every key's policies — no retry, no breaker, no window, no
 * budget — and read to its end, so its properties can be compared with the primary's. The
 * operation's validator runs on the answer afterwards (not inside the attempt), so a refused
 * answer keeps its tokens and cost.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import type { CallFacts } from '../call-types.ts';
import type { Clock } from '../clock.ts';
import type { StreamDialect } from '../streams/stream-dialect.ts';
import { addBodyProperties, refusalFinish, validateCandidate, validates, type AnswerProperties } from '../shadow/answer-properties.ts';
import type { DeclaredValidation } from '../validation/structured-output.ts';
import { sendAttempt, type FetchLike } from './http-attempt.ts';
import type { ModelApi } from './apis/model-api.ts';

/** One candidate request, ready to send. */
export interface CandidateRequest {
  fetch: FetchLike;
  url: URL;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
  stream: boolean;
  api: ModelApi;
  family: string;
  dialect: StreamDialect;
  clock: Clock;
  /** The candidate's cost of an answer, USD. */
  cost: (inputTokens: number, outputTokens: number) => number;
  /** The operation's declared validation (the fetch option `validate`), run as on the caller's answers. */
  validate?: DeclaredValidation;
}

/** Sends the candidate's request under `signal` and reads its answer to the end; rejects on a failed request. */
export async function sendCandidate(c: CandidateRequest, signal: AbortSignal): Promise<AnswerProperties> {
  const started = c.clock.now();
  let ended: { ok: boolean; facts: CallFacts; cls: ErrorClass | undefined } | undefined;
  let answer: unknown;
  const res = await sendAttempt(
    {
      fetch: c.fetch,
      url: c.url,
      method: c.method,
      headers: c.headers,
      body: JSON.stringify(c.body),
      stream: c.stream,
      api: c.api,
      family: c.family,
      requestBody: c.body,
      dialect: c.dialect,
      // The mirror's own deadline (its signal) bounds it; no per-phase timers of its own.
      timeouts: {},
      clock: c.clock,
      endGraceMs: 200,
      malformed: 'skip',
      hold: false,
      expectUsage: c.dialect.usageBeforeEnd(c.body),
      onDone: (ok, facts, cls, _cancelled, decoded) => {
        ended = { ok, facts, cls };
        answer = decoded;
      },
    },
    signal,
    undefined,
  );
  if (c.stream && res.body && !ended) {
    // The guard reports the stream's end (onDone) before its reader sees the end or the error.
    const reader = res.body.getReader();
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch {
      // a broken stream: its class is in what onDone reported
    }
  }
  const e = ended ?? { ok: false, facts: {}, cls: 'stream_broken' as ErrorClass };
  const props: AnswerProperties = {
    ok: e.ok,
    refusal: refusalFinish(e.facts.finishReason) || e.cls === 'policy',
    latencyMs: c.clock.now() - started,
    outputTokens: e.facts.outputTokens ?? 0,
    costUsd: c.cost(e.facts.inputTokens ?? 0, e.facts.outputTokens ?? 0),
  };
  if (!e.ok) props.errorClass = e.cls ?? 'unclassified';
  if (e.facts.ttftMs !== undefined) props.ttftMs = e.facts.ttftMs;
  if (answer !== undefined) addBodyProperties(props, c.family, answer);
  if (validates(c.validate, c.family, c.stream)) await validateCandidate(props, c.validate, c.family, answer, c.body);
  return props;
}

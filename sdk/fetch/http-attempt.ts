/**
 * One HTTP attempt of the fetch wrapper: send, apply the first-byte limit, turn an error
 * status into a classified `BreakerboxError` (keeping the answer so it can be handed back
 * to the official client), and for streams wait under the guard until the first token.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import type { AttemptControl, CallFacts } from '../key-policy.ts';
import type { TimeoutOptions } from '../settings.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { classifyHttpError, deprecationSignalOf, googleRetryDelayMs, providerErrorInfo, retryAfterFromHeaders, upstreamRequestIdOf } from '@breakerbox/protocol';
import { jsonAnswerClass } from './json-answer.ts';
import type { ModelApi } from './apis/model-api.ts';
import { guardStream, type StreamSummary } from '../streams/stream-guard.ts';
import type { StreamDialect } from '../streams/stream-dialect.ts';
import { invalidOutput } from '../validation/output-validator.ts';
import { rememberRequest } from '../telemetry/request-text.ts';
import { hasStructuredOutput, structuredAnswerProblem, type DeclaredValidation } from '../validation/structured-output.ts';

/** A fetch function (the global one, undici's, or the application's). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** An error answer kept whole, so the official client can raise its own typed error from it. */
export interface ProviderAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: string;
}

/** A provider's error answer, classified. */
export class ProviderHttpError extends BreakerboxError {
  constructor(
    readonly answer: ProviderAnswer,
    cls: ErrorClass,
    now: number,
  ) {
    const info = providerErrorInfo(answer.body);
    super(SDK_ERROR_CODES.PROVIDER_ERROR, `provider answered ${answer.status}${info.message ? `: ${info.message}` : ''}`, {
      errorClass: cls,
      status: answer.status,
      providerReason: info.code ?? info.type,
      upstreamRequestId: upstreamRequestIdOf(answer.headers),
      retryAfterMs: retryAfterFromHeaders(answer.headers, now) ?? googleRetryDelayMs(answer.body),
    });
    this.name = 'ProviderHttpError';
  }
}

/** Everything one attempt needs. */
export interface HttpAttempt {
  fetch: FetchLike;
  url: URL;
  method: string;
  headers: Headers;
  body: string;
  stream: boolean;
  /** The model API the request is (its stream framings, what its JSON answers say). */
  api: ModelApi;
  /** Endpoint family (`chat`, `responses`, `embeddings`, `messages`, …): what a JSON answer must hold. */
  family: string;
  /** The request body as sent (an embeddings answer is checked against its inputs). */
  requestBody: Record<string, unknown>;
  dialect: StreamDialect;
  timeouts: Readonly<TimeoutOptions>;
  clock: Clock;
  endGraceMs: number;
  malformed: 'error' | 'skip';
  expectUsage: boolean;
  /** Buffered mode: hand a stream over only once it is complete. */
  hold: boolean;
  /** How a non-streamed answer's structured output is validated (the fetch option `validate`). */
  validate?: DeclaredValidation | undefined;
  /** Called once the answer is fully known (JSON read, or stream ended); `answer` is a JSON answer's decoded body. */
  onDone: (ok: boolean, facts: CallFacts, cls: ErrorClass | undefined, cancelled: boolean, answer?: unknown) => void;
}

/** Sends one attempt; resolves with the Response to hand to the client (a stream: after its first token). */
export async function sendAttempt(a: HttpAttempt, signal: AbortSignal | undefined, control: AttemptControl | undefined): Promise<Response> {
  const started = a.clock.now();
  const ac = new AbortController();
  const onOuter = () => ac.abort(signal!.reason);
  if (signal?.aborted) throw signal.reason;
  signal?.addEventListener('abort', onOuter, { once: true });
  const unlink = () => signal?.removeEventListener('abort', onOuter);
  const firstByte =
    a.timeouts.firstByteMs === undefined
      ? undefined
      : a.clock.setTimeout(
          () => ac.abort(new BreakerboxError(SDK_ERROR_CODES.TIMEOUT, `no response headers within ${a.timeouts.firstByteMs} ms`, { errorClass: 'timeout', providerReason: 'first_byte' })),
          a.timeouts.firstByteMs,
        );
  const failWith = (err: unknown): never => {
    unlink();
    // Prefer our own timeout error over the generic AbortError fetch throws for it.
    const reason: unknown = ac.signal.aborted ? ac.signal.reason : undefined;
    throw reason instanceof BreakerboxError ? reason : err;
  };

  let res: Response;
  try {
    res = await a.fetch(a.url, { method: a.method, headers: a.headers, body: a.body, signal: ac.signal });
  } catch (err) {
    return failWith(err);
  } finally {
    if (firstByte !== undefined) a.clock.clearTimeout(firstByte);
  }
  const upstreamRequestId = upstreamRequestIdOf(res.headers);
  // A failed answer's headers travel in its ProviderHttpError; a success's in its facts.
  const deprecation = res.ok ? deprecationSignalOf(res.headers) : undefined;

  if (!res.ok) {
    let text = '';
    try {
      text = await res.text();
    } catch {
      // the body of an error answer is a hint only
    }
    unlink();
    const answer = { status: res.status, statusText: res.statusText, headers: res.headers, body: text };
    const error = new ProviderHttpError(answer, classifyHttpError(res.status, text, res.headers), a.clock.now());
    // The sample of this failure removes what the provider's message quotes from the request.
    rememberRequest(error, a.body);
    throw error;
  }

  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  const framing = a.stream ? a.api.streamFraming(res.headers.get('content-type')) : undefined;

  if (framing && res.body) {
    const g = guardStream(
      res.body,
      {
        dialect: a.dialect,
        framing,
        clock: a.clock,
        startedAt: started,
        firstTokenMs: a.timeouts.firstTokenMs,
        idleMs: a.timeouts.idleMs,
        endGraceMs: a.endGraceMs,
        expectUsage: a.expectUsage,
        malformed: a.malformed,
        hold: a.hold,
        abortUpstream: (r) => ac.abort(r),
      },
      (s: StreamSummary) => {
        unlink();
        const facts = streamFacts(s, upstreamRequestId);
        if (deprecation) facts.deprecation = deprecation;
        if (s.cancelled) control?.cancel();
        else control?.settle(s.cls, facts);
        // A failure before the stream was handed over (its first token, or in buffered mode
        // its end) is this attempt's alone: the answer the caller gets comes from another one.
        if (s.error && (s.ttftMs === undefined || a.hold)) return;
        a.onDone(!s.cancelled && s.cls === null, facts, s.cls ?? undefined, s.cancelled);
      },
    );
    try {
      await g.ready;
    } catch (err) {
      return failWith(err);
    }
    return new Response(g.stream, { status: res.status, statusText: res.statusText, headers });
  }

  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    return failWith(err);
  }
  unlink();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'malformed JSON answer', { errorClass: 'stream_broken', upstreamRequestId, cause: err });
  }
  const facts = a.api.jsonFacts(parsed, upstreamRequestId);
  if (deprecation) facts.deprecation = deprecation;
  const failure = a.api.jsonFailure(a.family, parsed, a.requestBody, upstreamRequestId);
  if (failure) throw failure;
  const cls = jsonAnswerClass(facts);
  // A truncated or filtered answer is already a failure of its own class; only a whole one is validated.
  if (a.validate !== undefined && cls === null && hasStructuredOutput(a.family)) {
    const problem = await structuredAnswerProblem(a.validate, a.family, parsed, a.requestBody);
    if (problem !== undefined) throw invalidOutput(problem, upstreamRequestId);
  }
  control?.settle(cls, facts);
  a.onDone(cls === null, facts, cls ?? undefined, false, parsed);
  return new Response(text, { status: res.status, statusText: res.statusText, headers });
}

function streamFacts(s: StreamSummary, upstreamRequestId: string | undefined): CallFacts {
  const f: CallFacts = { upstreamRequestId };
  if (s.ttftMs !== undefined) f.ttftMs = s.ttftMs;
  if (s.inputTokens !== undefined) f.inputTokens = s.inputTokens;
  if (s.outputTokens !== undefined) f.outputTokens = s.outputTokens;
  // A stream cut before its usage still cost what it streamed: count one token per delta.
  else if (s.tokens > 0) f.outputTokens = s.tokens;
  if (s.finishReason) f.finishReason = s.finishReason;
  if (s.cachedTokens !== undefined) f.cacheHit = s.cachedTokens > 0;
  if (s.reasoningTokens !== undefined) f.reasoningTokens = s.reasoningTokens;
  if (s.skippedFrames > 0) f.skippedChunks = s.skippedFrames;
  return f;
}

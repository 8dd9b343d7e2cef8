/**
 * Builds the evidence sample of one failed or slow attempt (protocol `CallSample`) from
 * what the key policy knows when it settles the attempt: the thrown error (our
 * `BreakerboxError` with the provider's answer, or an official client's `APIError`), the
 * answer's facts, and where the attempt sat in its call. Never reads a prompt or an answer's
 * text; the provider's error message is redacted and cut here, before it is kept.
 */
import type { CallSample, DeprecationSignal, ErrorClass } from '@breakerbox/protocol';
import { MAX_SAMPLE_MESSAGE_CHARS, deprecationSignalOf, providerErrorInfo, redactText, requestStringsOf, upstreamRequestIdOf, withoutRequestText } from '@breakerbox/protocol';
import { requestOf } from './request-text.ts';
import { BreakerboxError } from '../errors/catalog.ts';
import type { CallFacts } from '../call-types.ts';

/** What the key policy knows of one settled attempt. */
export interface SampleInput {
  /** When the attempt ended and started (clock ms). */
  end: number;
  start: number;
  /** Its class (null: a success, sampled only when slow). */
  cls: ErrorClass | null;
  attempt: number;
  /** Failover level of the call's chain, when it ran in one. */
  level: number | undefined;
  /** The attempt is a stream (its outcome settles when the stream ends). */
  stream: boolean;
  err: unknown;
  facts: CallFacts | undefined;
}

type HeadersLike = { get(name: string): string | null };
const isHeaders = (h: unknown): h is HeadersLike => !!h && typeof (h as HeadersLike).get === 'function';
const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);
const int = (v: unknown, min: number, max: number): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
const ms = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.min(Math.round(v), 86_400_000) : undefined);

/**
 * The provider's answer headers a thrown error carries: the fetch wrapper's
 * `ProviderHttpError` keeps the whole answer, an official client's `APIError` its headers.
 */
function errorHeaders(err: unknown): HeadersLike | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as Record<string, unknown>;
  if (err instanceof BreakerboxError) {
    const h = (e.answer as { headers?: unknown } | undefined)?.headers;
    return isHeaders(h) ? h : undefined;
  }
  return isHeaders(e.headers) ? e.headers : undefined;
}

/** The provider's `Deprecation` / `Sunset` headers on a failed attempt's answer, when it kept them. Never throws. */
export function deprecationOfError(err: unknown): DeprecationSignal | undefined {
  try {
    return deprecationSignalOf(errorHeaders(err));
  } catch {
    return undefined;
  }
}

/** The provider-facing facts of a thrown error, whichever client threw it. */
function errorFacts(err: unknown, s: CallSample): void {
  if (!err || typeof err !== 'object') return;
  const e = err as Record<string, unknown>;
  let body: unknown;
  let headers: HeadersLike | undefined;
  if (err instanceof BreakerboxError) {
    s.sdk_code = err.code;
    if (err.status !== undefined) s.status = err.status;
    if (err.upstreamRequestId) s.upstream_request_id = err.upstreamRequestId;
    // The fetch wrapper's ProviderHttpError keeps the whole answer.
    const answer = e.answer as { headers?: unknown; body?: unknown } | undefined;
    if (answer) {
      body = answer.body;
      if (isHeaders(answer.headers)) headers = answer.headers;
    } else if (err.providerReason) {
      s.error_code = redactText(err.providerReason, 100);
    }
  } else {
    // An official client's APIError (openai, @anthropic-ai/sdk): status, headers, parsed body.
    const status = int(e.status, 100, 599);
    if (status !== undefined) s.status = status;
    if (isHeaders(e.headers)) headers = e.headers;
    body = e.error !== undefined ? { error: e.error } : undefined;
    const rid = text(e.requestID, 200) ?? text(e.request_id, 200);
    if (rid) s.upstream_request_id = rid;
  }
  s.upstream_request_id ??= upstreamRequestIdOf(headers);
  const info = body === undefined ? {} : providerErrorInfo(body);
  // Redacted before the cut, like the message: a secret cannot survive by straddling it.
  const type = text(info.type, Infinity);
  const code = text(info.code, Infinity);
  if (type) s.error_type = redactText(type, 100);
  if (code) s.error_code = redactText(code, 100);
  const message = info.message ?? (err instanceof Error ? err.message : undefined);
  if (message) {
    // What the message quotes from the request goes first; undecidable: type and code only.
    const own = withoutRequestText(message, requestStringsOf(requestOf(err)));
    if (own) s.message = redactText(own, MAX_SAMPLE_MESSAGE_CHARS);
  }
}

/** The sample of one attempt; see the module comment. Never throws (a malformed error yields fewer fields). */
export function buildSample(i: SampleInput): CallSample {
  const s: CallSample = {
    ts: i.end,
    outcome: i.cls === null ? 'slow' : 'error',
    attempt: Math.max(1, Math.min(i.attempt, 1000)),
    duration_ms: ms(i.end - i.start) ?? 0,
  };
  if (i.cls !== null) s.error_class = i.cls;
  if (i.level !== undefined) s.level = i.level;
  if (i.stream) s.stream = true;
  try {
    errorFacts(i.err, s);
  } catch {
    // A getter that throws on a foreign error object: keep what was read.
  }
  const f = i.facts;
  if (f) {
    if (f.upstreamRequestId) s.upstream_request_id ??= f.upstreamRequestId.slice(0, 200);
    const ttft = ms(f.ttftMs);
    if (ttft !== undefined) s.ttft_ms = ttft;
    const ttfb = ms(f.ttfbMs);
    if (ttfb !== undefined) s.ttfb_ms = ttfb;
    const inTok = int(f.inputTokens, 0, Number.MAX_SAFE_INTEGER);
    if (inTok !== undefined) s.input_tokens = inTok;
    const outTok = int(f.outputTokens, 0, Number.MAX_SAFE_INTEGER);
    if (outTok !== undefined) s.output_tokens = outTok;
    const finish = text(f.finishReason, 100);
    if (finish) s.finish_reason = finish;
    const model = text(f.modelServed, 300);
    if (model) s.model_served = model;
    if (typeof f.costUsd === 'number' && f.costUsd > 0 && f.costUsd <= 1_000_000) s.cost_usd = Math.round(f.costUsd * 1e6) / 1e6;
  }
  if (i.stream && i.cls !== null && s.status === undefined) {
    s.broke_at = s.ttft_ms !== undefined ? 'after_first_token' : 'before_first_token';
  }
  return s;
}

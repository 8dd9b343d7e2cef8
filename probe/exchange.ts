/**
 * One probe request over the wire: a fresh connection (so connect time — DNS, TCP,
 * TLS — is measured on every probe, and a dead resolver or handshake is seen), then
 * first byte (first token when streamed) and total, each under its own timeout.
 * Transport errors and HTTP error statuses go to the SDK's classifier; the adapter
 * only judges the shape of a success.
 */
import { performance } from 'node:perf_hooks';
import { buildConnector, Client } from 'undici';
import type { ErrorClass } from '@breakerbox/protocol';
import { classifyHttpError, classifyThrown, providerErrorInfo, upstreamRequestIdOf } from '@breakerbox/protocol';
import { malformed, tryJson } from './adapters/chat-request.ts';
import type { Answer, ProbeAdapter, ShapeVerdict, Usage } from './adapters/types.ts';
import type { Canary } from './canary-config.ts';
import { judgeCanary, type CanaryMiss } from './canary-check.ts';
import type { ProbeTimeouts } from './config-types.ts';
import type { AwsCredentials } from './aws-credentials.ts';
import { SseReader } from '@breakerbox/protocol';

/** What one exchange observed. `reason` may hold provider text: redact before logging. */
export interface ExchangeResult {
  ok: boolean;
  errorClass?: ErrorClass;
  status?: number;
  latency: { connect?: number; ttfb?: number; total: number };
  usage?: Usage;
  reason: string;
  /** A failure's upstream request id, from the answer's headers (none without an answer). */
  upstreamRequestId?: string;
  /** A refused request's error body, as the provider wrote it: NOT redacted yet. */
  providerError?: { type?: string; code?: string; message?: string };
  /** The served model version the answer names (non-streamed answers of kinds that read answers). */
  served?: { model?: string; fingerprint?: string };
  /** A well-formed answer that missed its canary (`ok` stays true: the transport worked). NOT redacted yet. */
  wrongAnswer?: CanaryMiss;
}

/** Everything one exchange needs; `apiKey` is only ever placed in a request header. */
export interface ExchangeInput {
  adapter: ProbeAdapter<unknown>;
  request: unknown;
  baseUrl: URL;
  apiKey: string | undefined;
  /** AWS credentials for kinds that sign with SigV4 (used only when no `apiKey` is given). */
  aws?: AwsCredentials | undefined;
  timeouts: ProbeTimeouts;
  /** The target's canary: the request asks for it and the answer is judged against it. */
  canary?: Canary | undefined;
}

const MAX_BODY_BYTES = 1 << 20;
type Phase = 'first_byte' | 'total';

/** Milliseconds between two `performance.now()` readings, rounded to whole ms. */
function ms(from: number, to: number): number {
  return Math.max(0, Math.round(to - from));
}

async function readText(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < MAX_BODY_BYTES) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** undici's header object read the way `upstreamRequestIdOf` asks (first value of a repeated header). */
function headerReader(headers: Record<string, string | string[] | undefined>): { get(name: string): string | null } {
  return {
    get: (name) => {
      const v = headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    },
  };
}

/** The served model and, with a canary, the miss of a well-formed answer. */
function answerFacts(a: Answer, canary: Canary | undefined): Pick<ExchangeResult, 'served' | 'wrongAnswer'> {
  const out: Pick<ExchangeResult, 'served' | 'wrongAnswer'> = {};
  if (a.servedModel || a.fingerprint) out.served = { ...(a.servedModel ? { model: a.servedModel } : {}), ...(a.fingerprint ? { fingerprint: a.fingerprint } : {}) };
  const miss = canary ? judgeCanary(canary, a) : undefined;
  if (miss) out.wrongAnswer = miss;
  return out;
}

/** Runs one probe exchange; never throws. */
export async function runExchange(input: ExchangeInput): Promise<ExchangeResult> {
  const { adapter, request, timeouts } = input;
  let out = adapter.buildRequest(input.baseUrl, request, input.apiKey, input.canary);
  if (adapter.sign && input.apiKey === undefined) {
    if (!input.aws) return { ok: false, errorClass: 'auth', latency: { total: 0 }, reason: 'no AWS credentials to sign with (environment or profile)' };
    try {
      out = await adapter.sign(out, request, input.aws);
    } catch (err) {
      return { ok: false, errorClass: 'bad_request', latency: { total: 0 }, reason: `signing failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  const streamed = adapter.streamed(request);
  const controller = new AbortController();
  let timedOut: Phase | undefined;
  const expire = (phase: Phase) => (): void => {
    timedOut ??= phase;
    controller.abort();
  };
  const t0 = performance.now();
  let connectMs: number | undefined;
  let ttfbMs: number | undefined;
  let status: number | undefined;
  let upstreamRequestId: string | undefined;
  let providerError: ExchangeResult['providerError'];
  let phase: 'connect' | 'body' = 'connect';
  const firstByteTimer = setTimeout(expire('first_byte'), timeouts.firstByteMs);
  const totalTimer = setTimeout(expire('total'), timeouts.totalMs);
  const baseConnect = buildConnector({ timeout: timeouts.connectMs });
  const client = new Client(out.url.origin, {
    connect: (options, callback) => {
      const start = performance.now();
      baseConnect(options, (...args) => {
        if (args[0] === null) connectMs = ms(start, performance.now());
        callback(...args);
      });
    },
    headersTimeout: 0,
    bodyTimeout: 0,
    pipelining: 1,
  });
  const finish = (verdict: ShapeVerdict | { ok: false; errorClass: ErrorClass; reason: string }): ExchangeResult => {
    const latency: ExchangeResult['latency'] = { total: ms(t0, performance.now()) };
    if (connectMs !== undefined) latency.connect = connectMs;
    if (ttfbMs !== undefined) latency.ttfb = ttfbMs;
    const usage = 'usage' in verdict && verdict.usage ? { usage: verdict.usage } : {};
    const st = status === undefined ? {} : { status };
    if (verdict.ok) return { ok: true, ...st, latency, ...usage, reason: 'ok' };
    return {
      ok: false, errorClass: verdict.errorClass, ...st, latency, ...usage, reason: verdict.reason,
      ...(upstreamRequestId ? { upstreamRequestId } : {}), ...(providerError ? { providerError } : {}),
    };
  };

  try {
    const res = await client.request({
      path: `${out.url.pathname}${out.url.search}`,
      method: out.method,
      headers: { ...out.headers, 'user-agent': 'breakerbox-probe/0.1.0' },
      body: out.body ?? null,
      signal: controller.signal,
    });
    status = res.statusCode;
    upstreamRequestId = upstreamRequestIdOf(headerReader(res.headers));
    phase = 'body';
    const accepted = adapter.acceptsStatus(request, res.statusCode);
    const contentType = String(res.headers['content-type'] ?? '');
    const isSse = contentType.includes(adapter.streamContentType ?? 'text/event-stream');
    if (!(streamed && accepted && isSse)) {
      ttfbMs = ms(t0, performance.now());
      clearTimeout(firstByteTimer);
    }
    if (!accepted) {
      const text = await readText(res.body);
      const body = tryJson(text) ?? text;
      const info = providerErrorInfo(body);
      providerError = info;
      const detail = info.message ?? info.code ?? info.type ?? '';
      return finish({
        ok: false,
        errorClass: classifyHttpError(res.statusCode, body, res.headers as Record<string, string | string[] | undefined>),
        reason: `HTTP ${res.statusCode}${detail ? `: ${detail.slice(0, 200)}` : ''}`,
      });
    }
    if (!streamed) {
      const text = await readText(res.body);
      const verdict = adapter.checkBody(request, text, contentType);
      const result = finish(verdict);
      const answer = verdict.ok ? adapter.readAnswer?.(request, text) : undefined;
      if (answer) Object.assign(result, answerFacts(answer, input.canary));
      return result;
    }
    if (!isSse) {
      const text = await readText(res.body);
      return finish(malformed(tryJson(text) ?? text, `expected an event stream, got "${contentType || 'no content-type'}"`));
    }
    const parser = adapter.eventReader?.() ?? new SseReader();
    const checker = adapter.createStreamChecker(request);
    let firstEventAt: number | undefined;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      for (const event of parser.push(chunk)) {
        firstEventAt ??= performance.now();
        const step = checker.onEvent(event);
        if (step.firstToken && ttfbMs === undefined) {
          ttfbMs = ms(t0, performance.now());
          clearTimeout(firstByteTimer);
        }
        if (step.failure) {
          res.body.destroy();
          return finish({ ok: false, ...step.failure });
        }
      }
    }
    // A stream that produced no content token still had a first byte: its first event.
    if (ttfbMs === undefined && firstEventAt !== undefined) ttfbMs = ms(t0, firstEventAt);
    const verdict = checker.end();
    const result = finish(verdict);
    const served = verdict.ok ? checker.served?.() : undefined;
    if (served) result.served = served;
    return result;
  } catch (err) {
    if (timedOut) {
      const limit = timedOut === 'total' ? timeouts.totalMs : timeouts.firstByteMs;
      return finish({ ok: false, errorClass: 'timeout', reason: `${timedOut.replace('_', ' ')} timeout after ${limit} ms` });
    }
    const message = err instanceof Error ? err.message : String(err);
    if (phase === 'body' && streamed) {
      return finish({ ok: false, errorClass: 'stream_broken', reason: `stream cut: ${message}` });
    }
    return finish({ ok: false, errorClass: classifyThrown(err), reason: `${phase === 'body' ? 'body' : 'request'} failed: ${message}` });
  } finally {
    clearTimeout(firstByteTimer);
    clearTimeout(totalTimer);
    client.destroy().catch(() => undefined);
  }
}

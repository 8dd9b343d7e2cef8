/**
 * A `fetch`-compatible function for the official `openai` and `@anthropic-ai/sdk` clients
 * (their `fetch` option). Every model request goes through the key's policies (key from
 * the URL and the body's `model`) and through a fallback chain built from configuration:
 * another model at the same provider, or another base URL with its own key. Give the
 * official client `maxRetries: 0`: retries are decided here, within the budget.
 *
 * Which requests are model calls, and how each API names its model, is the table in
 * `apis/`. Any other request is forwarded untouched and announced through the host's
 * `notePassthrough`: never silently.
 */
import { createHash } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { FetchHost } from './fetch-host.ts';
import type { BreakerboxFetchOptions, FetchRoute } from './fetch-options.ts';
import type { FailoverLevel, Operation, OperationResult } from '../policies/fallback.ts';
import type { CallFacts } from '../key-policy.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { checkFetchOptions } from '../options/validate-options.ts';
import { providerOf } from '@breakerbox/protocol';
import { callerKeyOf, readModelCall, type ModelCall } from './apis/index.ts';
import { bedrockSignerProblem } from './apis/bedrock.ts';
import { isSigV4Signed } from './request-signer.ts';
import { ProviderHttpError, sendAttempt, type FetchLike } from './http-attempt.ts';
import { sdkErrorAnswer } from './refusal-answer.ts';
import { rescuedResponse } from './rescued-response.ts';
import { estimateTokens } from '../pricing.ts';
import type { DrillTraffic } from '../drills/drill-traffic.ts';
import { drillFetch } from '../drills/drill-fetch.ts';
import { shadowRouteFor, startMirror, tellOutcome, type PrimaryWatch, type ShadowRoute } from './shadow-mirror.ts';

/** Seconds a drilled 429 asks the caller to wait. */
const DRILL_RETRY_AFTER_S = 1;

export type { BreakerboxFetchOptions, FetchRoute } from './fetch-options.ts';

interface RequestInput {
  url: URL;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
  /** `body` as the caller sent it, sent unchanged when a route changes nothing in it (a signature covers its bytes). */
  text: string | undefined;
  call: ModelCall;
  stream: boolean;
  hold: boolean;
  /** Set when the call is drill traffic (docs/drills.md). */
  drill: DrillTraffic | undefined;
  done: (ok: boolean, facts: CallFacts, cls: ErrorClass | undefined, cancelled: boolean, answer?: unknown) => void;
}

interface ResolvedRoute {
  key: BreakerKey;
  /** The chain's first route. */
  primary: boolean;
  level: FailoverLevel;
  route: FetchRoute;
  exerciseShare?: number;
}

/** Builds the wrapper for one SDK instance (`Breakerbox.fetch`). */
export function createBreakerboxFetch(bb: FetchHost, options: BreakerboxFetchOptions = {}): FetchLike {
  checkFetchOptions(options, '');
  if (!options.signer) refuseUnsignableRoutes(options);
  const midStream = options.midStream ?? 'rescue';
  const connectMs = options.timeouts?.connectMs;
  const underlying: FetchLike =
    options.fetch ??
    (connectMs !== undefined
      ? (() => {
          const dispatcher = new Agent({ connect: { timeout: connectMs } });
          return (input, init) => undiciFetch(input as never, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>;
        })()
      : (input, init) => globalThis.fetch(input, init));
  const operations = new Map<string, { op: Operation<RequestInput, Response>; routes: ResolvedRoute[]; shadow: ShadowRoute | undefined }>();

  if (options.baseURL && options.fallbacks && providerOf(new URL(options.baseURL)) !== 'bedrock') {
    const base = new URL(options.baseURL);
    const endpoint = providerOf(base) === 'anthropic' ? 'messages' : 'chat/completions';
    for (const model of Object.keys(options.fallbacks)) {
      const url = new URL(base);
      url.pathname = `${base.pathname.replace(/\/+$/, '')}/${endpoint}`;
      const call = readModelCall(url, { model });
      if (call) operationFor(url, call, undefined);
    }
  }

  function operationFor(url: URL, call: ModelCall, credential: string | undefined) {
    const { family, model } = call;
    const provider = options.provider ?? call.provider ?? providerOf(url);
    // The region the path names is part of the key (a Vertex location): two locations behind one host are two keys.
    const id = `${url.origin}\u0001${call.api.id}\u0001${family}\u0001${model}\u0001${call.region ?? ''}`;
    let entry = operations.get(id);
    if (entry) return entry;
    const primary: ResolvedRoute = { key: withRegion({ provider, endpoint: family, model }, call.region ?? options.region), primary: true, level: 0, route: {} };
    const routes = [primary];
    for (const r of options.fallbacks?.[model] ?? []) {
      // The fallback's key is what its re-targeted request reads as: provider and region from its URL.
      const to = call.api.retarget(call, { url, headers: new Headers(), body: { model } }, r);
      const read = call.api.read(to.url, to.body);
      const key = withRegion(
        { provider: r.provider ?? (r.baseURL ? (read?.provider ?? providerOf(to.url)) : provider), endpoint: family, model: r.model ?? model },
        r.region ?? (r.baseURL ? read?.region : (read?.region ?? call.region ?? options.region)),
      );
      routes.push({ key, primary: false, level: r.level ?? (r.model && r.model !== model ? 2 : 1), route: r, exerciseShare: r.exerciseShare ?? options.exerciseShare });
    }
    if (routes.length > 1) {
      bb.declareFallbacks(
        { key: primary.key, host: url.host, credentialId: credential },
        routes.slice(1).map((r) => ({
          key: r.key,
          host: r.route.baseURL ? new URL(r.route.baseURL).host : url.host,
          credentialId: r.route.apiKey ? fingerprint(r.route.apiKey) : credential,
        })),
      );
    }
    const name = typeof options.operation === 'function' ? options.operation(model, family) : (options.operation ?? `${family}:${model}`);
    const op = bb.operation<RequestInput, Response>({
      name,
      failClosed: options.failClosed,
      fallbackOn: options.fallbackOn,
      levels: routes.map((r) => ({
        key: r.key,
        level: r.level,
        exerciseShare: r.exerciseShare,
        run: (input, signal, _attempt, control) => attemptRoute(r, input, signal, control),
      })),
    });
    entry = { op, routes, shadow: shadowRouteFor(bb, options, url, call, provider) };
    operations.set(id, entry);
    return entry;
  }

  async function attemptRoute(r: ResolvedRoute, input: RequestInput, signal: AbortSignal | undefined, control: Parameters<typeof sendAttempt>[2]) {
    const policy = bb.policy(r.key);
    const timeouts = { ...policy.settings.timeouts, ...definedOnly(options.timeouts) };
    const api = input.call.api;
    const out = api.retarget(input.call, { url: input.url, headers: input.headers, body: input.body }, r.route);
    const { url, body } = out;
    const text = body === input.body && input.text !== undefined ? input.text : JSON.stringify(body);
    let headers = new Headers(out.headers);
    // A signature covers the URL and the body: a re-targeted signed request is signed again, or never sent.
    if (api.sign && !r.route.apiKey && (url.href !== input.url.href || body !== input.body) && isSigV4Signed(input.headers)) {
      if (!options.signer) throw signerRequired(`a route of ${input.call.model} sends it to ${url.href}`);
      headers = await api.sign({ url, headers, body }, text, options.signer);
    }
    const dialect = api.dialect(r.key.endpoint);
    const kind = input.drill?.faultFor(r.key, r.primary);
    return sendAttempt(
      {
        fetch: kind === undefined ? underlying : drillFetch({
          kind,
          drillId: input.drill!.id,
          family: r.key.endpoint,
          request: body,
          stream: input.stream,
          slowMs: slowFirstByteMs(timeouts, policy.settings.breaker.latencyCeilingMs, input.stream),
          retryAfterS: DRILL_RETRY_AFTER_S,
          clock: bb.clock,
        }, underlying),
        url,
        method: input.method,
        headers,
        body: text,
        stream: input.stream,
        api,
        family: r.key.endpoint,
        requestBody: body,
        dialect,
        timeouts,
        clock: bb.clock,
        endGraceMs: options.endGraceMs ?? 200,
        malformed: options.malformedChunks ?? 'skip',
        hold: input.hold,
        expectUsage: dialect.usageBeforeEnd(body),
        validate: options.validate,
        onDone: input.done,
      },
      signal,
      control,
    );
  }

  /** Forwards a request the wrapper does not protect, unchanged, and tells the host (counted, announced once). */
  function passThrough(url: URL, method: string, why: string, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    try {
      bb.notePassthrough?.(url, method, why);
    } catch {
      // counting never fails the caller's request
    }
    return underlying(input, init);
  }

  return async function breakerboxFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const read = await readRequest(input, init);
    if (!('body' in read)) return passThrough(read.url, read.method, read.why, input, init);
    const req = read;
    const call = readModelCall(req.url, req.body);
    if (!call) return passThrough(req.url, req.method, 'no model API the SDK protects has this path', input, init);
    const model = call.model;
    if (call.api.sign && !options.signer && isSigV4Signed(req.headers)) {
      const moved = unsignableRoute(options, model, true);
      if (moved) throw signerRequired(moved);
    }
    const credential = credentialOf(req.headers, req.url);
    const { op, routes, shadow } = operationFor(req.url, call, credential);
    const stream = call.stream;
    const t0 = bb.clock.now();
    const drill = bb.drillTraffic?.(routes[0]!.key);
    // Drill traffic is never mirrored: its faults are ours, not the primary's answers.
    const watch: PrimaryWatch | undefined = shadow && !drill
      ? startMirror(bb, options, underlying, routes[0]!.key, shadow, {
          url: req.url, method: req.method, headers: req.headers, body: req.body, call, family: call.family, stream, startedAt: t0,
        })
      : undefined;

    // The stream may end before `run` resolves; whichever comes second completes the task.
    // A rescued stream is completed by its rescuer instead, once the caller's stream ends.
    let result: OperationResult<Response> | undefined;
    let ended: [boolean, CallFacts, ErrorClass | undefined] | undefined;
    let rescued = false;
    // The shadow's primary side, told once the answer and its end are both known.
    let told = !watch;
    const tellPrimary = () => {
      if (told || !result || !ended) return;
      told = true;
      tellOutcome(watch!, result, ended, answer);
    };
    const finish = () => {
      if (!rescued && result?.complete && ended) result.complete(ended[0], ended[1], ended[2]);
      tellPrimary();
    };
    const inputFor = (body: Record<string, unknown>, onDone: RequestInput['done']): RequestInput => ({
      url: req.url,
      method: req.method,
      headers: req.headers,
      body,
      text: body === req.body ? req.text : undefined,
      call,
      stream,
      hold: stream && midStream === 'buffer',
      drill,
      done: onDone,
    });
    let answer: unknown;
    const ri = inputFor(req.body, (ok, facts, cls, cancelled, decoded) => {
      ended = [ok && !cancelled, facts, cancelled ? undefined : cls];
      answer = decoded;
      finish();
    });
    const estimate = bb.costBudget.active
      ? bb.prices.cost(model, estimateTokens(req.body), call.api.maxOutputTokens(req.body) ?? 1024)
      : undefined;
    const runOpts = {
      signal: req.signal,
      deadlineMs: options.timeouts?.totalMs,
      deferSettle: true,
      idempotencyKey: req.headers.get('idempotency-key') ?? undefined,
      ...(options.idempotent === false ? { idempotent: false } : {}),
      estimatedCostUsd: estimate,
      ...(drill ? { drill } : {}),
    };
    try {
      result = await op.run(ri, runOpts);
    } catch (err) {
      if (!req.signal?.aborted) watch?.failed(err);
      const answer = providerAnswerOf(err);
      // Hand the provider's own answer back, so the official client raises its typed error.
      if (answer) return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
      // The SDK's own refusals and timeouts, as an answer the client shows readably.
      if (!req.signal?.aborted) {
        const own = sdkErrorAnswer(err);
        if (own) return own;
      }
      throw err;
    }
    let res = result.value;
    // A JSON answer, or a short stream, ended before `run` resolved: told to no one yet.
    tellPrimary();
    const framing = stream && midStream === 'rescue' && res.body ? call.api.streamFraming(res.headers.get('content-type')) : undefined;
    if (framing) {
      rescued = true;
      res = rescuedResponse(res as Response & { body: ReadableStream<Uint8Array> }, result, {
        bb,
        op,
        dialect: call.api.dialect(call.family),
        framing,
        body: req.body,
        inputFor,
        runOptions: runOpts,
        totalMs: options.timeouts?.totalMs,
        startedAt: t0,
        maxRescues: options.maxRescues ?? 2,
        chainLength: routes.length,
        prefill: options.prefill !== false,
        servedEnd: () => ended,
        label: `${call.family}:${model}`,
      });
    } else {
      finish();
    }
    res.headers.set('x-breakerbox-level', String(result.level));
    res.headers.set('x-breakerbox-model', result.key?.model ?? model);
    res.headers.set('x-breakerbox-attempts', String(result.attempts.length));
    return res;
  };
}

/** A request as the wrapper reads it: a JSON object body to match against the API table, or why it is not one. */
type ReadRequest =
  | { url: URL; method: string; headers: Headers; body: Record<string, unknown>; text: string; signal: AbortSignal | undefined }
  | { url: URL; method: string; why: string };

async function readRequest(input: string | URL | Request, init?: RequestInit): Promise<ReadRequest> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  if (method !== 'POST') return { url, method, why: `a ${method} request is not a model call` };
  let text: string | undefined;
  if (typeof init?.body === 'string') text = init.body;
  else if (init?.body === undefined && input instanceof Request) text = await input.clone().text();
  else if (init?.body instanceof Uint8Array) text = new TextDecoder().decode(init.body);
  if (!text) return { url, method, why: init?.body ? 'its body is not text the SDK can read (a stream or form data)' : 'it has no body' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { url, method, why: 'its body is not JSON' };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { url, method, why: 'its body is not a JSON object' };
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((v, k) => headers.set(k, v));
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
  return { url, method, headers, body: body as Record<string, unknown>, text, signal };
}

/** The first fallback or shadow of `model` that re-targets a signed request (another model or base URL) without its own key; `signed`: the request is known to be signed, whatever its model id. */
function unsignableRoute(options: BreakerboxFetchOptions, model: string, signed: boolean): string | undefined {
  const routes = [...(options.fallbacks?.[model] ?? []), ...(options.shadow?.[model] ? [options.shadow[model]] : [])];
  for (const r of routes) {
    const problem = bedrockSignerProblem(options.baseURL, model, r, signed);
    if (problem) return problem;
  }
  return undefined;
}

/** Refuses, at construction, fallbacks and shadows of Bedrock models that would need a signer that was not given. */
function refuseUnsignableRoutes(options: BreakerboxFetchOptions): void {
  for (const model of new Set([...Object.keys(options.fallbacks ?? {}), ...Object.keys(options.shadow ?? {})])) {
    const problem = unsignableRoute(options, model, false);
    if (problem) throw signerRequired(problem);
  }
}

function signerRequired(what: string): BreakerboxError {
  return new BreakerboxError(
    SDK_ERROR_CODES.SIGNER_REQUIRED,
    `${what}: its SigV4 signature covers the model and host, so it must be signed again — give bb.fetch a \`signer\` (new SignatureV4({ credentials, region, service: 'bedrock', sha256 }) from @smithy/signature-v4), or an \`apiKey\` on the route`,
    { field: 'signer' },
  );
}

function providerAnswerOf(err: unknown) {
  let e: unknown = err;
  if (e instanceof BreakerboxError && e.code === SDK_ERROR_CODES.FALLBACK_EXHAUSTED) e = (e as Error).cause;
  return e instanceof ProviderHttpError ? e.answer : undefined;
}

function credentialOf(h: Headers, url: URL): string | undefined {
  const k = callerKeyOf(h, url);
  return k ? fingerprint(k) : undefined;
}

/** A short, non-reversible id of a credential: enough to tell two keys apart, never the key. */
function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

function withRegion(key: BreakerKey, region: string | undefined): BreakerKey {
  return region ? { ...key, region } : key;
}

function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (o) for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** A first byte past the key's limit: its first-byte (or, streamed, first-token) timeout, else the latency ceiling that makes it slow; half as long again. */
function slowFirstByteMs(t: { firstByteMs?: number; firstTokenMs?: number }, latencyCeilingMs: number, stream: boolean): number {
  const limit = Math.min(t.firstByteMs ?? Infinity, stream ? (t.firstTokenMs ?? Infinity) : Infinity, latencyCeilingMs);
  return Math.ceil(limit * 1.5);
}


/**
 * Shadow traffic in the fetch wrapper (issue 28): which candidate a primary model's
 * requests are mirrored to (`shadow` option), and, per request, the mirror started beside
 * the caller's call and told the primary's answer once it is known. The runner
 * (`shadow/shadow-runner.ts`) decides, bounds and pairs; this file only speaks HTTP.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import { classifyThrown } from '@breakerbox/protocol';
import type { CallFacts } from '../call-types.ts';
import type { ErrorClass } from '@breakerbox/protocol';
import type { FetchHost } from './fetch-host.ts';
import type { BreakerboxFetchOptions } from './fetch-options.ts';
import type { FetchLike } from './http-attempt.ts';
import type { ShadowTarget } from '../shadow/shadow-options.ts';
import { addBodyProperties, primaryValidation, refusalFinish, requestAsksJson, validates, type AnswerProperties } from '../shadow/answer-properties.ts';
import { providerOf } from '@breakerbox/protocol';
import type { ModelCall } from './apis/index.ts';
import { sendCandidate } from './shadow-send.ts';
import { isSigV4Signed } from './request-signer.ts';

/** A primary model's candidate: its key and where to send. */
export interface ShadowRoute {
  key: BreakerKey;
  target: ShadowTarget;
}

/** The candidate of `model` at `url` (undefined when none is configured, or its endpoint is another family). */
export function shadowRouteFor(bb: FetchHost, options: BreakerboxFetchOptions, url: URL, call: ModelCall, primaryProvider: string): ShadowRoute | undefined {
  const { family, model } = call;
  const target = options.shadow?.[model];
  if (!target) return undefined;
  if (target.endpoint !== undefined && target.endpoint !== family) {
    bb.warn(`shadow of ${model}: endpoint ${target.endpoint} is not the primary's (${family}); request bodies are not translated, so it is not mirrored`, 'BB_WARN_SDK_SHADOW_ENDPOINT');
    return undefined;
  }
  const to = target.baseURL ? call.api.retarget(call, { url, headers: new Headers(), body: { model } }, target) : undefined;
  const read = to ? call.api.read(to.url, to.body) : undefined;
  const provider = target.provider ?? (to ? (read?.provider ?? providerOf(to.url)) : primaryProvider);
  const region = target.region ?? (to ? read?.region : (call.region ?? options.region));
  return { key: { provider, endpoint: family, model: target.model, ...(region ? { region } : {}) }, target };
}

/** The request being mirrored, as the wrapper read it. */
export interface MirroredRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
  call: ModelCall;
  family: string;
  stream: boolean;
  startedAt: number;
}

/** Where the wrapper tells the primary's outcome. */
export interface PrimaryWatch {
  /** The call failed (`err` as the chain threw it). */
  failed(err: unknown): void;
  /** A fallback served: the primary failed with `cls` first. */
  failedOver(cls: ErrorClass): void;
  /** The primary's answer ended; `answer` is a non-streamed answer's decoded body (its refusal, JSON validity, validation). */
  ended(ok: boolean, facts: CallFacts, cls: ErrorClass | undefined, answer: unknown): void;
}

/**
 * Starts the mirror of `req` to `route` when the runner picks it; undefined otherwise. The
 * returned watch never throws.
 */
export function startMirror(
  bb: FetchHost,
  options: BreakerboxFetchOptions,
  underlying: FetchLike,
  primaryKey: BreakerKey,
  route: ShadowRoute,
  req: MirroredRequest,
): PrimaryWatch | undefined {
  const { target } = route;
  const { validate } = options;
  const declared = validates(validate, req.family, req.stream);
  const asksJson = requestAsksJson(req.body);
  const mirror = bb.shadows.begin(
    {
      key: primaryKey,
      candidate: route.key,
      share: target.share,
      failClosed: options.failClosed === true,
      // An idempotency key makes a retry safe, never a second, different request: side effects stay unmirrored.
      idempotent: options.idempotent !== false,
      asksJson,
    },
    async (signal) => {
      const out = req.call.api.retarget(req.call, { url: req.url, headers: req.headers, body: req.body }, target);
      let headers = new Headers(out.headers);
      // A signed request sent to another model or host is signed again (bb.fetch refused this shadow without a signer).
      if (req.call.api.sign && options.signer && !target.apiKey && isSigV4Signed(req.headers)) {
        headers = await req.call.api.sign({ url: out.url, headers, body: out.body }, JSON.stringify(out.body), options.signer);
      }
      // The caller's idempotency key would let the provider answer the mirror from the primary's request.
      headers.delete('idempotency-key');
      return sendCandidate(
        {
          fetch: underlying,
          url: out.url,
          method: req.method,
          headers,
          body: out.body,
          stream: req.stream,
          api: req.call.api,
          family: req.family,
          dialect: req.call.api.dialect(req.family),
          clock: bb.clock,
          cost: (i, o) => bb.prices.cost(target.model, i, o),
          ...(declared ? { validate } : {}),
        },
        signal,
      );
    },
  );
  if (!mirror) return undefined;
  const model = primaryKey.model;
  const props = (ok: boolean, facts: CallFacts, cls: ErrorClass | undefined): AnswerProperties => {
    const p: AnswerProperties = {
      ok,
      refusal: refusalFinish(facts.finishReason) || cls === 'policy',
      latencyMs: bb.clock.now() - req.startedAt,
      outputTokens: facts.outputTokens ?? 0,
      costUsd: bb.prices.cost(model, facts.inputTokens ?? 0, facts.outputTokens ?? 0),
    };
    if (!ok) p.errorClass = cls ?? 'unclassified';
    if (facts.ttftMs !== undefined) p.ttftMs = facts.ttftMs;
    const v = primaryValidation(declared, ok, cls);
    if (v !== undefined) p.validation = v;
    return p;
  };
  const failedWith = (cls: ErrorClass) => {
    const p: AnswerProperties = { ok: false, errorClass: cls, refusal: cls === 'policy', latencyMs: bb.clock.now() - req.startedAt, outputTokens: 0, costUsd: 0 };
    const v = primaryValidation(declared, false, cls);
    if (v !== undefined) p.validation = v;
    mirror.primaryDone(p);
  };
  return {
    failed(err) {
      try {
        failedWith(classifyThrown(err));
      } catch {
        // a mirror never fails the caller
      }
    },
    failedOver(cls) {
      failedWith(cls);
    },
    ended(ok, facts, cls, answer) {
      const p = props(ok, facts, cls);
      if (answer !== undefined) addBodyProperties(p, req.family, answer);
      mirror.primaryDone(p);
    },
  };
}

/**
 * Tells `watch` how the primary did, once the chain's result and the answer's end are both
 * known: the served primary's answer, or its first failure when a fallback served. A
 * cancelled answer, and one an exercised fallback served without the primary failing, are
 * not compared.
 */
export function tellOutcome(
  watch: PrimaryWatch,
  result: { index: number; attempts: ReadonlyArray<{ level: number; ok: boolean; errorClass?: ErrorClass }> },
  ended: readonly [boolean, CallFacts, ErrorClass | undefined],
  answer: unknown,
): void {
  if (!ended[0] && ended[2] === undefined) return;
  if (result.index === 0) {
    watch.ended(ended[0], ended[1], ended[2], answer);
    return;
  }
  const first = result.attempts.find((a) => a.level === 0 && !a.ok)?.errorClass;
  if (first !== undefined) watch.failedOver(first);
}

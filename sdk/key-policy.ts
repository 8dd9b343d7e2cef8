/**
 * Everything that protects one breaker key: bulkhead, breaker, retries within the shared
 * budget, the total deadline, optional hedging, and the key's telemetry window.
 *
 * The hot path of `execute` (no failure, no deadline) allocates nothing of its own beyond
 * the async function's promise and starts no timer.
 */
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import { sleep } from './clock.ts';
import { newCallId, type CallEvent } from './call-event.ts';
import { Breaker, PASS_PROBE, REFUSED_OPEN } from './policies/breaker.ts';
import { Bulkhead } from './policies/bulkhead.ts';
import { decideRetry } from './policies/retry.ts';
import { Deadline } from './policies/deadline.ts';
import { runHedged } from './policies/hedge.ts';
import type { ResolvedKeySettings } from './settings.ts';
import { KeyStats, type AttemptFacts } from './telemetry/key-stats.ts';
import { buildSample, deprecationOfError } from './telemetry/call-sample.ts';
import { classifyFinishReason, classifyThrown, retryAfterOfError } from '@breakerbox/protocol';
import { BreakerboxError, SDK_ERROR_CODES } from './errors/catalog.ts';
import type { AttemptControl, AttemptFn, CallFacts, CallOptions, SdkContext } from './call-types.ts';
import { attemptRecord, isSettled, markSettled, refusal, safeFacts } from './attempt-helpers.ts';

export type { AttemptControl, AttemptFn, AttemptRecord, CallFacts, CallOptions, SdkContext } from './call-types.ts';

const FLAG_PROBE = 1;
const FLAG_COLD = 2;
const FLAG_EXERCISE = 4;
const NEED_QUEUE = -1;
const NO_RETRY = { retry: false } as const;

/** The policies of one key. */
export class KeyPolicy {
  readonly breaker: Breaker;
  readonly bulkhead: Bulkhead;
  readonly stats: KeyStats;
  private lastStart = -Infinity;
  /** The refusal message, built only when refusing (a string per key adds up at 10k keys). */
  private refusedOpen(): string {
    const k = this.key;
    return `breaker open for ${k.provider}/${k.endpoint}/${k.model}${k.region ? `@${k.region}` : ''}`;
  }

  /** No deadline, hedging or queue: `execute` without options can take the plain path. */
  private readonly plain: boolean;

  constructor(
    readonly key: BreakerKey,
    readonly settings: ResolvedKeySettings,
    private readonly ctx: SdkContext,
  ) {
    this.breaker = new Breaker(key, settings.breaker, ctx.clock, ctx.random);
    this.bulkhead = new Bulkhead(settings.bulkhead);
    this.stats = new KeyStats(key, ctx.latencyBounds, ctx.clock.now(), ctx.sampleLimits);
    this.plain = settings.timeouts.totalMs === undefined && !settings.hedge.enabled && settings.bulkhead.maxQueue === 0;
  }

  /**
   * Lets one attempt through or throws a refusal (`BB_ERR_SDK_BREAKER_OPEN`,
   * `BB_ERR_SDK_HALF_OPEN_BUSY`, `BB_ERR_SDK_BULKHEAD_FULL`). Returns flags for `settle`,
   * or `NEED_QUEUE` (-1) when the caller should wait in the bulkhead's queue.
   */
  admit(now: number, stats: KeyStats = this.stats): number {
    const pass = this.breaker.tryPass(now);
    if (pass < 0) {
      stats.shortCircuit();
      throw pass === REFUSED_OPEN
        ? refusal(SDK_ERROR_CODES.BREAKER_OPEN, this.refusedOpen())
        : refusal(SDK_ERROR_CODES.HALF_OPEN_BUSY, `${this.refusedOpen()}: half-open, probe slots taken`);
    }
    if (!this.bulkhead.tryAcquire()) {
      if (pass === PASS_PROBE) this.breaker.releaseProbe();
      if (this.bulkhead.canQueue()) return NEED_QUEUE;
      stats.rejection();
      this.breaker.recordRejection(now);
      throw refusal(SDK_ERROR_CODES.BULKHEAD_FULL, `bulkhead full for ${this.key.model} (${this.settings.bulkhead.maxConcurrent} in flight)`);
    }
    return this.flags(now, pass === PASS_PROBE);
  }

  /** `admit`, waiting in the bulkhead's queue when it says so. */
  async admitOrQueue(now: number, signal: AbortSignal | undefined, stats: KeyStats = this.stats): Promise<number> {
    const flags = this.admit(now, stats);
    if (flags !== NEED_QUEUE) return flags;
    await this.bulkhead.waitForSlot(signal);
    // The slot was handed over by `release`; the breaker may have changed meanwhile.
    const t = this.ctx.clock.now();
    const pass = this.breaker.tryPass(t);
    if (pass < 0) {
      this.bulkhead.release();
      stats.shortCircuit();
      throw refusal(SDK_ERROR_CODES.BREAKER_OPEN, this.refusedOpen());
    }
    return this.flags(t, pass === PASS_PROBE);
  }

  private flags(now: number, probe: boolean): number {
    const cold = now - this.lastStart > this.settings.coldAfterIdleMs;
    this.lastStart = now;
    return (probe ? FLAG_PROBE : 0) | (cold ? FLAG_COLD : 0);
  }

  /**
   * Records an admitted attempt's outcome (`cls` null: success) and frees its slot. A failed
   * or slow attempt is also offered to the window's evidence samples (`attempt`, `err` and
   * `opts` say what it was); a fast success costs one comparison more.
   */
  settle(flags: number, now: number, start: number, cls: ErrorClass | null, retry: boolean, facts: CallFacts | undefined, attempt = 1, err?: unknown, opts?: CallOptions<never> | CallOptions<unknown>): void {
    this.bulkhead.release();
    const latency = now - start;
    const slow = cls === null && latency > this.settings.breaker.latencyCeilingMs;
    const probe = (flags & FLAG_PROBE) !== 0;
    const cold = (flags & FLAG_COLD) !== 0;
    this.breaker.record(now, cls, slow, probe, cold);
    // Drill traffic is counted apart, so the collector can keep it out of real verdicts;
    // its failure onset is not reported early (it must not prompt a real probe or decision).
    const stats = opts?.drill ? opts.drill.keyStats(this.key) : this.stats;
    const onset = stats.attempt(latency, cls, slow, retry, cold, probe, facts, (flags & FLAG_EXERCISE) !== 0) && stats === this.stats;
    if (facts?.costUsd) this.ctx.costBudget.record(facts.costUsd, now);
    const signal = facts?.deprecation ?? (cls !== null ? deprecationOfError(err) : undefined);
    if (signal) stats.deprecation(signal);
    if ((cls !== null || slow) && stats.wantsSample(cls ?? 'slow', now)) this.keepSample(stats, now, start, cls, attempt, err, facts, opts);
    // After the sample: the onset's window goes out with the attempt that made it.
    if (onset) this.ctx.onFailureOnset?.(stats);
  }

  private keepSample(stats: KeyStats, end: number, start: number, cls: ErrorClass | null, attempt: number, err: unknown, facts: CallFacts | undefined, opts: CallOptions<never> | CallOptions<unknown> | undefined): void {
    try {
      stats.sample(buildSample({ end, start, cls, attempt, level: opts?.level, stream: opts?.deferSettle === true, err, facts }));
    } catch {
      // Evidence is a nicety: it must never break the call it describes.
    }
  }

  /** Frees an admitted attempt's slot without recording an outcome. */
  cancel(flags: number): void {
    this.bulkhead.release();
    if (flags & FLAG_PROBE) this.breaker.releaseProbe();
  }

  /** Cost of `facts` at this key's model price, unless the facts carry one. */
  costOf(facts: AttemptFacts | undefined): number {
    if (!facts) return 0;
    if (facts.costUsd !== undefined) return facts.costUsd;
    return this.ctx.prices.cost(this.key.model, facts.inputTokens ?? 0, facts.outputTokens ?? 0);
  }

  /**
   * Runs `fn` under every policy of the key: refusal when open or full, retries of
   * retryable classes within the attempt cap, the budget and the deadline, telemetry.
   */
  execute<T>(fn: AttemptFn<T>, opts?: CallOptions<T>): Promise<T> {
    return opts === undefined && this.plain ? this.executePlain(fn) : this.executeFull(fn, opts, this.ctx.clock.now(), 0);
  }

  /**
   * The common case — no options, no deadline, no hedging, no queue — with two clock
   * reads and no allocation of its own; a failure continues in `executeFull`.
   */
  private async executePlain<T>(fn: AttemptFn<T>): Promise<T> {
    const ctx = this.ctx;
    const start = ctx.clock.now();
    ctx.retryBudget.recordRequest(start);
    const flags = this.admit(start);
    let value: T;
    try {
      value = await fn(undefined, 1, undefined);
    } catch (err) {
      const end = ctx.clock.now();
      const cls = classifyThrown(err);
      this.settle(flags, end, start, cls, false, undefined, 1, err);
      const d = this.retryDecision(cls, 1, err, end, undefined, undefined);
      if (!d.retry) {
        if (ctx.calls.size) this.emitCall(start, 1, 0, cls, err, undefined, undefined);
        throw err;
      }
      await sleep(ctx.clock, d.delayMs);
      return this.executeFull(fn, undefined, start, 1);
    }
    const end = ctx.clock.now();
    this.settle(flags, end, start, null, false, undefined);
    if (ctx.calls.size) this.emitCall(start, 1, 0, undefined, undefined, undefined, undefined);
    return value;
  }

  private retryDecision(cls: ErrorClass, attempt: number, err: unknown, end: number, deadline: Deadline | undefined, opts: CallOptions<never> | CallOptions<unknown> | undefined) {
    const ctx = this.ctx;
    return decideRetry(
      this.settings.retry,
      {
        cls,
        attempt,
        retryAfterMs: retryAfterOfError(err, end),
        remainingMs: deadline ? deadline.remaining() : Infinity,
        breakerClosed: this.breaker.state.name === 'closed',
        idempotent: opts?.idempotent !== false || opts.idempotencyKey !== undefined,
        withdraw: () => ctx.retryBudget.tryWithdraw(end),
      },
      ctx.random,
    );
  }

  /** The general case: `made` attempts were already made (by `executePlain`) since `t0`. */
  private async executeFull<T>(fn: AttemptFn<T>, opts: CallOptions<T> | undefined, t0: number, made: number): Promise<T> {
    const ctx = this.ctx;
    const clock = ctx.clock;
    if (made === 0) ctx.retryBudget.recordRequest(t0);
    if (opts?.estimatedCostUsd !== undefined && ctx.costBudget.active) ctx.costBudget.check(opts.estimatedCostUsd, this.key.model, t0);
    const totalMs = opts?.deadlineMs ?? this.settings.timeouts.totalMs;
    const deadline = totalMs === undefined ? undefined : new Deadline(clock, totalMs, opts?.signal);
    const signal = deadline ? deadline.signal : opts?.signal;
    let attempt = made;
    let costUsd = 0;
    try {
      for (;;) {
        attempt++;
        let start = clock.now();
        const stats = opts?.drill ? opts.drill.keyStats(this.key) : this.stats;
        let flags = this.admit(start, stats);
        if (flags === NEED_QUEUE) {
          flags = await this.admitOrQueue(start, signal, stats);
          start = clock.now();
        }
        if (opts?.exercise) flags |= FLAG_EXERCISE;
        let value: T;
        // Hedged attempts record their own outcomes (there may be two of them).
        let selfSettled = false;
        try {
          if (opts?.deferSettle) {
            value = await this.deferred(fn, signal, attempt, flags, start, deadline, opts);
          } else if (this.settings.hedge.enabled && this.hedgeAllowed(start)) {
            selfSettled = true;
            value = await this.hedged(fn, signal, attempt, flags, start, opts);
          } else {
            const p = fn(signal, attempt, undefined);
            value = deadline ? await deadline.race(p) : await p;
          }
        } catch (err) {
          const end = clock.now();
          const callerAborted = opts?.signal?.aborted === true;
          if (!isSettled(err)) {
            // A caller who gave up tells us nothing about the provider.
            if (callerAborted) this.cancel(flags);
            else this.settle(flags, end, start, classifyThrown(err), attempt > 1, undefined, attempt, err, opts);
            opts?.onAttempt?.(attemptRecord(this.key, attempt, end - start, classifyThrown(err), err, 0));
          }
          if (callerAborted) throw err;
          const cls = classifyThrown(err);
          // An exercised fallback gets one try: the caller's request goes on to the primary at once.
          const d = opts?.exercise ? NO_RETRY : this.retryDecision(cls, attempt, err, end, deadline, opts);
          if (!d.retry) {
            if (ctx.calls.size && !opts?.silent) this.emitCall(t0, attempt, costUsd, cls, err, undefined, opts);
            throw err;
          }
          await sleep(clock, d.delayMs, signal);
          continue;
        }
        if (opts?.deferSettle) return value;
        const end = clock.now();
        if (selfSettled) {
          if (ctx.calls.size && !opts?.silent) this.emitCall(t0, attempt, costUsd, undefined, undefined, undefined, opts);
          return value;
        }
        const facts = opts?.facts ? safeFacts(opts.facts, value) : undefined;
        let cls: ErrorClass | null = null;
        if (facts) {
          facts.costUsd = this.costOf(facts);
          costUsd += facts.costUsd;
          cls = classifyFinishReason(facts.finishReason) ?? null;
        }
        this.settle(flags, end, start, cls, attempt > 1, facts, attempt, undefined, opts);
        opts?.onAttempt?.(attemptRecord(this.key, attempt, end - start, cls ?? undefined, undefined, facts?.costUsd ?? 0));
        if (ctx.calls.size && !opts?.silent) this.emitCall(t0, attempt, costUsd, cls ?? undefined, undefined, facts, opts);
        return value;
      }
    } finally {
      deadline?.dispose();
    }
  }

  private hedgeAllowed(now: number): boolean {
    return this.breaker.state.name === 'closed' && this.breaker.rates(now).error < this.settings.hedge.maxErrorShare;
  }

  private async deferred<T>(
    fn: AttemptFn<T>,
    signal: AbortSignal | undefined,
    attempt: number,
    flags: number,
    start: number,
    deadline: Deadline | undefined,
    opts: CallOptions<T>,
  ): Promise<T> {
    let done = false;
    const control: AttemptControl = {
      settle: (cls, facts) => {
        if (done) return;
        done = true;
        if (facts) facts.costUsd = this.costOf(facts);
        const now = this.ctx.clock.now();
        this.settle(flags, now, start, cls, attempt > 1, facts, attempt, undefined, opts);
        opts.onAttempt?.(attemptRecord(this.key, attempt, now - start, cls ?? undefined, undefined, facts?.costUsd ?? 0));
      },
      cancel: () => {
        if (done) return;
        done = true;
        this.cancel(flags);
      },
    };
    try {
      const p = fn(signal, attempt, control);
      return await (deadline ? deadline.race(p) : p);
    } catch (err) {
      if (done) throw markSettled(err);
      done = true;
      throw err;
    }
  }

  private async hedged<T>(fn: AttemptFn<T>, signal: AbortSignal | undefined, attempt: number, flags: number, start: number, opts: CallOptions<T> | undefined): Promise<T> {
    const clock = this.ctx.clock;
    return runHedged<T>(
      async (s) => {
        try {
          const v = await fn(s, attempt, undefined);
          this.settle(flags, clock.now(), start, null, attempt > 1, undefined, attempt, undefined, opts);
          return v;
        } catch (err) {
          if (s.aborted && !signal?.aborted) this.cancel(flags);
          else this.settle(flags, clock.now(), start, classifyThrown(err), attempt > 1, undefined, attempt, err, opts);
          throw markSettled(err);
        }
      },
      async (s) => {
        const t = clock.now();
        if (!this.ctx.retryBudget.tryWithdraw(t)) throw new Error('hedge budget');
        const f2 = this.admit(t, opts?.drill ? opts.drill.keyStats(this.key) : this.stats);
        if (f2 === NEED_QUEUE) throw new Error('hedge: bulkhead full');
        try {
          const v = await fn(s, attempt + 1, undefined);
          this.settle(f2, clock.now(), t, null, true, undefined, attempt + 1, undefined, opts);
          return v;
        } catch (err) {
          if (s.aborted && !signal?.aborted) this.cancel(f2);
          else this.settle(f2, clock.now(), t, classifyThrown(err), true, undefined, attempt + 1, err, opts);
          throw markSettled(err);
        }
      },
      this.settings.hedge.delayMs,
      clock,
      signal,
    );
  }

  private emitCall(t0: number, attempts: number, costUsd: number, cls: ErrorClass | undefined, err: unknown, facts: CallFacts | undefined, opts: CallOptions<never> | CallOptions<unknown> | undefined): void {
    const k = this.key;
    const ev: CallEvent = {
      requestId: newCallId(),
      provider: k.provider,
      endpoint: k.endpoint,
      model: k.model,
      attempts,
      level: 0,
      ok: cls === undefined,
      durationMs: this.ctx.clock.now() - t0,
      costUsd,
    };
    if (k.region) ev.region = k.region;
    if (opts?.operation) ev.operation = opts.operation;
    if (cls) ev.errorClass = cls;
    if (err instanceof BreakerboxError) ev.errorCode = err.code;
    if (facts) {
      if (facts.upstreamRequestId) ev.upstreamRequestId = facts.upstreamRequestId;
      if (facts.ttftMs !== undefined) ev.ttftMs = facts.ttftMs;
      if (facts.inputTokens !== undefined) ev.inputTokens = facts.inputTokens;
      if (facts.outputTokens !== undefined) ev.outputTokens = facts.outputTokens;
      if (facts.reasoningTokens !== undefined) ev.reasoningTokens = facts.reasoningTokens;
      if (facts.finishReason) ev.finishReason = facts.finishReason;
      if (facts.cacheHit !== undefined) ev.cacheHit = facts.cacheHit;
    }
    this.ctx.calls.emit(ev);
  }
}


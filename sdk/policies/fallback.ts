/**
 * Fallback chain for one operation: ordered levels 0–4 (0 primary; 1 same model
 * elsewhere; 2 equivalent model; 3 cheaper model; 4 cached or templated answer, always
 * flagged degraded). Each level with a key runs under that key's own policies. The chain
 * moves on for provider-side failures and refusals (open breaker, full bulkhead) and, by
 * default, for `context_length` (the next route may have a longer context); other
 * client-fault errors only when listed in `fallbackOn`. A `failClosed` operation never
 * substitutes.
 *
 * Exercise: with `exerciseShare`, that share of normal runs starts at a fallback level
 * instead (each keyed fallback its own share), so the fallbacks are proven with live
 * traffic before an incident needs them. Such a run is not a failover: its attempts are
 * marked `exercised` in the fallback key's window, and if the exercised level fails the
 * run continues with the primary and the rest of the chain.
 */
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import type { Emitter } from '../events.ts';
import type { CallEvent } from '../call-event.ts';
import { newCallId } from '../call-event.ts';
import type { AttemptControl, AttemptRecord, CallFacts, CallOptions, KeyPolicy } from '../key-policy.ts';
import type { TaskStats } from '../telemetry/task-stats.ts';
import { classifyFinishReason, classifyThrown, countsAgainstProvider } from '@breakerbox/protocol';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { assertValidOutput, type OutputValidator } from '../validation/output-validator.ts';
import type { DrillTraffic } from '../drills/drill-traffic.ts';

/** Failover levels (docs/architecture.md). */
export type FailoverLevel = 0 | 1 | 2 | 3 | 4;

/** One level of a chain. A level without `key` is a local answer (cache, template): level 4, degraded. */
export interface ChainLevel<I, T> {
  level?: FailoverLevel;
  key?: BreakerKey;
  run: (input: I, signal: AbortSignal | undefined, attempt: number, control: AttemptControl | undefined) => Promise<T>;
  /** Usage and finish reason of an answer, for telemetry and cost. */
  facts?: (value: T) => CallFacts | undefined;
  /** Share (0–1) of normal runs sent to this fallback level first (default: the spec's `exerciseShare`). */
  exerciseShare?: number;
}

/** An operation: a named, ordered chain. */
export interface OperationSpec<I, T> {
  name: string;
  levels: ReadonlyArray<ChainLevel<I, T>>;
  /** Durable writes: never substitute another level for the primary. */
  failClosed?: boolean;
  /** Client-fault classes that also move the chain on (default `DEFAULT_FALLBACK_ON`; `[]` for none). */
  fallbackOn?: readonly ErrorClass[];
  /** Share (0–1) of normal runs sent through each keyed fallback level first (default 0: off). */
  exerciseShare?: number;
  /**
   * How every level's answer is validated: a JSON Schema, a validator function, or a
   * Standard Schema (zod, valibot, arktype). An answer that fails is an `invalid_output`
   * failure (`BB_ERR_SDK_INVALID_OUTPUT`) of its attempt: not retried on the same key, failed
   * over to the next level (it is in `DEFAULT_FALLBACK_ON`), never returned as a success —
   * with `failClosed`, the run fails.
   */
  validate?: OutputValidator<T>;
}

/** A configured operation, ready to run inputs through its chain. */
export interface Operation<I, T> {
  readonly name: string;
  /** Warnings from the configuration review of its fallbacks. */
  readonly warnings: readonly string[];
  run(input: I, opts?: RunOptions): Promise<OperationResult<T>>;
}

/** Per-run options. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Deadline for the whole chain, ms. */
  deadlineMs?: number;
  idempotent?: boolean;
  idempotencyKey?: string;
  estimatedCostUsd?: number;
  /** Attempts settle later (streams): see `AttemptControl`. */
  deferSettle?: boolean;
  /**
   * A mid-stream rescue of an earlier run: no exercise, and no task or `onCall` of its own —
   * the earlier run's `complete` takes this run's attempts (see `OperationResult.complete`).
   */
  rescue?: boolean;
  /**
   * With `rescue`: the index in the chain's levels the rescue starts at. The levels before
   * it already broke this answer (see the fetch wrapper's `midStream` option); default 0.
   */
  startAt?: number;
  /** Set by the SDK when the run is drill traffic: its attempts and task are counted in the drill's stats. */
  drill?: DrillTraffic;
}

/** What a chain run returns. */
export interface OperationResult<T> {
  value: T;
  /** The level that served. */
  level: FailoverLevel;
  /** Index of the serving entry in the operation's levels (as configured). */
  index: number;
  /** The key that served (absent for a local level-4 answer). */
  key: BreakerKey | undefined;
  degraded: boolean;
  /** Every attempt made, failed ones included, in order. */
  attempts: AttemptRecord[];
  /** Cost of all attempts, USD (attempts still streaming add theirs when they settle). */
  costUsd: number;
  /**
   * With `deferSettle`: call once the served answer has been consumed, to record the task
   * and emit `onCall` with the answer's facts (`ok` false if the stream then broke).
   * `rescues`: the runs that rescued the answer mid-stream, in order; their attempts join
   * this task's and the last one's level is the serving level.
   */
  complete?: (ok: boolean, facts?: CallFacts, errorClass?: ErrorClass, rescues?: ReadonlyArray<OperationResult<T>>) => void;
}

/** What the chain needs from the SDK instance. */
export interface ChainHost {
  clock: Clock;
  random: () => number;
  policy(key: BreakerKey): KeyPolicy;
  tasks(operation: string): TaskStats;
  calls: Emitter<CallEvent>;
}

/**
 * Client-fault classes that move on by default: a prompt over one model's context may fit
 * the next route's, and an answer that failed validation may come out valid from the next
 * model; trying costs one request. Every other client fault would fail the same way everywhere.
 */
export const DEFAULT_FALLBACK_ON: readonly ErrorClass[] = Object.freeze(['context_length', 'invalid_output'] as ErrorClass[]);

const MOVE_ON_CODES = new Set<string>([SDK_ERROR_CODES.BREAKER_OPEN, SDK_ERROR_CODES.HALF_OPEN_BUSY, SDK_ERROR_CODES.BULKHEAD_FULL]);

/** Level of the i-th entry when not given: its index, capped at 3 for keyed levels; 4 for local answers. */
export function levelOf<I, T>(l: ChainLevel<I, T>, i: number): FailoverLevel {
  return l.level ?? (l.key ? (Math.min(i, 3) as FailoverLevel) : 4);
}

/** Runs the chain for one input. */
export async function runChain<I, T>(host: ChainHost, spec: OperationSpec<I, T>, input: I, opts: RunOptions = {}): Promise<OperationResult<T>> {
  const t0 = host.clock.now();
  const attempts: AttemptRecord[] = [];
  let lastErr: unknown;
  let lastCls: ErrorClass | undefined;
  let lastKey: BreakerKey | undefined;
  let fallbackInvoked = false;
  let fallbackFailed = false;
  const levels = spec.failClosed ? spec.levels.slice(0, 1) : opts.rescue ? spec.levels.slice(opts.startAt ?? 0) : exerciseOrder(host, spec);
  if (levels.length === 0) throw new BreakerboxError(SDK_ERROR_CODES.FALLBACK_EXHAUSTED, `${spec.name}: no level left to rescue from`, { errorClass: 'stream_broken' });
  /** Index in `levels` of the primary: levels before it are an exercised fallback, not a failover. */
  const primaryAt = levels.indexOf(spec.levels[0]!);
  const validate = spec.validate;
  const cost = () => attempts.reduce((s, a) => s + a.costUsd, 0);
  const finish = (ok: boolean, level: FailoverLevel | undefined, degraded: boolean, facts?: CallFacts, rescues = 0) => {
    if (opts.rescue) return;
    // An answer cut by its token limit or a filter is delivered, but it is not a success.
    const finishCls = classifyFinishReason(facts?.finishReason);
    if (ok && finishCls) {
      ok = false;
      lastCls = finishCls;
    }
    (opts.drill ? opts.drill.tasks(spec.name) : host.tasks(spec.name)).record({ ok, level: ok ? level : undefined, degraded, attempts: attempts.length, costUsd: cost(), fallbackInvoked, fallbackFailed, primaryKey: spec.levels.find((l) => l.key)?.key });
    if (host.calls.size) emitChainCall(host, spec.name, t0, attempts, ok, level ?? 0, lastKey, ok ? undefined : lastCls, lastErr, facts, rescues, opts.drill?.id);
  };

  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    const level = levelOf(l, spec.levels.indexOf(l));
    const exercised = i < primaryAt;
    if (i > primaryAt) fallbackInvoked = true;
    const remaining = opts.deadlineMs === undefined ? undefined : opts.deadlineMs - (host.clock.now() - t0);
    if (remaining !== undefined && remaining <= 0) break;
    lastKey = l.key;
    try {
      let value: T;
      let facts: CallFacts | undefined;
      if (!l.key) {
        value = await l.run(input, opts.signal, 1, undefined);
        if (validate) await assertValidOutput(validate, value);
        attempts.push({ key: undefined, level, attempt: 1, ok: true, durationMs: 0, costUsd: 0 });
      } else {
        const callOpts: CallOptions<T> = {
          signal: opts.signal,
          deadlineMs: remaining,
          idempotent: opts.idempotent,
          idempotencyKey: opts.idempotencyKey,
          estimatedCostUsd: opts.estimatedCostUsd,
          deferSettle: opts.deferSettle,
          exercise: exercised,
          silent: true,
          operation: spec.name,
          level,
          facts: l.facts ? (v) => (facts = l.facts!(v)) : undefined,
          onAttempt: (r) => attempts.push({ ...r, level }),
        };
        if (opts.drill) callOpts.drill = opts.drill;
        // Validated inside the attempt, so the key's window counts it as `invalid_output`.
        const run = validate
          ? async (signal: AbortSignal | undefined, attempt: number, control: AttemptControl | undefined) => {
              const v = await l.run(input, signal, attempt, control);
              await assertValidOutput(validate, v);
              return v;
            }
          : (signal: AbortSignal | undefined, attempt: number, control: AttemptControl | undefined) => l.run(input, signal, attempt, control);
        value = await host.policy(l.key).execute(run, callOpts);
      }
      const degraded = level === 4;
      if (opts.deferSettle && l.key) {
        let done = false;
        const complete = (ok: boolean, f?: CallFacts, cls?: ErrorClass, rescues?: ReadonlyArray<OperationResult<T>>) => {
          if (done) return;
          done = true;
          if (!ok) lastCls = cls;
          let served = level;
          for (const r of rescues ?? []) {
            attempts.push(...r.attempts);
            served = r.level;
            lastKey = r.key;
            if (r.level > 0) fallbackInvoked = true;
          }
          finish(ok, served, served === 4, f ?? facts, rescues?.length ?? 0);
        };
        return { value, level, index: spec.levels.indexOf(l), key: l.key, degraded, attempts, costUsd: cost(), complete };
      }
      finish(true, level, degraded, facts);
      return { value, level, index: spec.levels.indexOf(l), key: l.key, degraded, attempts, costUsd: cost() };
    } catch (err) {
      lastErr = err;
      lastCls = classifyThrown(err);
      if (i > primaryAt) fallbackFailed = true;
      if (opts.signal?.aborted) break;
      if (exercised) continue; // an exercised fallback that fails hands the run to the primary
      const code = err instanceof BreakerboxError ? err.code : undefined;
      const moveOn = countsAgainstProvider(lastCls) || (code !== undefined && MOVE_ON_CODES.has(code)) || (spec.fallbackOn ?? DEFAULT_FALLBACK_ON).includes(lastCls);
      if (!moveOn) break;
    }
  }
  finish(false, undefined, false);
  if (levels.length === 1 || !(lastErr instanceof Error) || opts.signal?.aborted) throw lastErr;
  throw new BreakerboxError(SDK_ERROR_CODES.FALLBACK_EXHAUSTED, `${spec.name}: every level failed; last: ${lastErr.message}`, {
    errorClass: lastCls,
    cause: lastErr,
  });
}

/** The chain's levels for one run: usually as configured; for an exercised run, one fallback first. */
function exerciseOrder<I, T>(host: ChainHost, spec: OperationSpec<I, T>): ReadonlyArray<ChainLevel<I, T>> {
  const levels = spec.levels;
  if (levels.length < 2 || (!spec.exerciseShare && !levels.some((l) => l.exerciseShare))) return levels;
  let r = host.random();
  for (let i = 1; i < levels.length; i++) {
    const l = levels[i]!;
    if (!l.key) continue;
    const s = l.exerciseShare ?? spec.exerciseShare ?? 0;
    if (r < s) return [l, ...levels.filter((x) => x !== l)];
    r -= s;
  }
  return levels;
}

function emitChainCall(
  host: ChainHost,
  operation: string,
  t0: number,
  attempts: AttemptRecord[],
  ok: boolean,
  level: number,
  key: BreakerKey | undefined,
  cls: ErrorClass | undefined,
  err: unknown,
  facts: CallFacts | undefined,
  rescues: number,
  drillId: string | undefined,
): void {
  const ev: CallEvent = {
    requestId: newCallId(),
    provider: key?.provider ?? 'local',
    endpoint: key?.endpoint ?? 'local',
    model: key?.model ?? 'local',
    operation,
    attempts: attempts.length,
    level,
    ok,
    durationMs: host.clock.now() - t0,
    costUsd: attempts.reduce((s, a) => s + a.costUsd, 0),
  };
  if (key?.region) ev.region = key.region;
  if (rescues > 0) ev.rescues = rescues;
  if (drillId !== undefined) ev.drillId = drillId;
  if (!ok && cls) ev.errorClass = cls;
  if (!ok && err instanceof BreakerboxError) ev.errorCode = err.code;
  if (facts) {
    if (facts.upstreamRequestId) ev.upstreamRequestId = facts.upstreamRequestId;
    if (facts.inputTokens !== undefined) ev.inputTokens = facts.inputTokens;
    if (facts.outputTokens !== undefined) ev.outputTokens = facts.outputTokens;
    if (facts.reasoningTokens !== undefined) ev.reasoningTokens = facts.reasoningTokens;
    if (facts.finishReason) ev.finishReason = facts.finishReason;
    if (facts.ttftMs !== undefined) ev.ttftMs = facts.ttftMs;
    if (facts.cacheHit !== undefined) ev.cacheHit = facts.cacheHit;
  }
  host.calls.emit(ev);
}

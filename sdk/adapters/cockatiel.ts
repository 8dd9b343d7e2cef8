/**
 * cockatiel adapter: turns a cockatiel `CircuitBreakerPolicy` (and optionally a
 * `BulkheadPolicy`) into protocol v1 telemetry through a breakerbox instance.
 *
 * What cockatiel cannot tell us:
 * - calls refused while the circuit is open throw `BrokenCircuitError` but emit no event:
 *   `short_circuited` stays 0 unless you call `recordShortCircuit` from your catch, or use
 *   `wrapExecute` below;
 * - the cooldown: `halfOpenAfter` (and its backoff) is not exposed, so `cooldown_ms` is absent;
 * - a failure's class when the policy was told to handle only some errors: unhandled errors
 *   reach us as failures with `handled: false` and are classified like the others;
 * - why it opened beyond "a failure" / "isolated": every automatic open is `error_rate`,
 *   `isolate()` is `manual`;
 * - cold starts, token usage and cost.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { AdapterHost } from './adapter-host.ts';
import { classifyThrown } from '@breakerbox/protocol';

interface CockatielEvent<T> {
  (listener: (e: T) => void): { dispose(): void };
}

/** The part of cockatiel's `CircuitBreakerPolicy` the adapter uses. */
export interface CockatielBreakerLike {
  readonly onBreak: CockatielEvent<unknown>;
  readonly onReset: CockatielEvent<void>;
  readonly onHalfOpen: CockatielEvent<void>;
  readonly onSuccess: CockatielEvent<{ duration: number }>;
  readonly onFailure: CockatielEvent<{ duration: number; handled: boolean; reason: unknown }>;
  readonly state: number;
}

/** The part of cockatiel's `BulkheadPolicy` the adapter uses. */
export interface CockatielBulkheadLike {
  readonly onReject: CockatielEvent<void>;
}

/** What `attachCockatiel` returns. */
export interface CockatielAttachment {
  /** Counts one call refused by the open circuit (cockatiel emits nothing for it). */
  recordShortCircuit(): void;
  /** Runs `fn` through `policy.execute`, counting `BrokenCircuitError` refusals. */
  wrapExecute<T>(policy: { execute(fn: () => Promise<T>): Promise<T> }, fn: () => Promise<T>): Promise<T>;
  detach(): void;
}

// cockatiel's CircuitState enum: Closed 0, Open 1, HalfOpen 2, Isolated 3.
const STATE = ['closed', 'open', 'half_open', 'forced_open'] as const;

/** Attaches to a cockatiel breaker (and bulkhead); returns helpers and `detach`. */
export function attachCockatiel(
  bb: AdapterHost,
  key: BreakerKey,
  breaker: CockatielBreakerLike,
  bulkhead?: CockatielBulkheadLike,
  options: { latencyCeilingMs?: number } = {},
): CockatielAttachment {
  const rec = bb.externalKey(key, STATE[breaker.state] ?? 'closed', options.latencyCeilingMs);
  const subs = [
    breaker.onSuccess((e) => rec.attempt(e.duration, null)),
    breaker.onFailure((e) => {
      const reason = e.reason as { error?: unknown; value?: unknown } | undefined;
      rec.attempt(e.duration, reason && 'error' in reason ? classifyThrown(reason.error) : 'server');
    }),
    breaker.onBreak((r) => {
      const isolated = !!(r as { isolated?: boolean } | undefined)?.isolated;
      rec.transition(isolated ? 'forced_open' : 'open', isolated ? 'manual' : rec.state === 'half_open' ? 'probe_failed' : 'error_rate');
    }),
    breaker.onHalfOpen(() => rec.transition('half_open', 'cooldown_elapsed')),
    breaker.onReset(() => rec.transition('closed', rec.state === 'half_open' ? 'probes_succeeded' : 'manual')),
  ];
  if (bulkhead) subs.push(bulkhead.onReject(() => rec.rejected()));
  return {
    recordShortCircuit: () => rec.shortCircuited(),
    async wrapExecute(policy, fn) {
      try {
        return await policy.execute(fn);
      } catch (err) {
        if ((err as { name?: string })?.name === 'BrokenCircuitError' || (err as { isBrokenCircuitError?: boolean })?.isBrokenCircuitError) rec.shortCircuited();
        throw err;
      }
    },
    detach: () => subs.forEach((s) => s.dispose()),
  };
}

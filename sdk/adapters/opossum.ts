/**
 * opossum adapter: turns an opossum `CircuitBreaker`'s events into protocol v1 telemetry
 * through a breakerbox instance, so a team keeps opossum and still gets breakerbox.
 *
 * What opossum cannot tell us, and so the telemetry cannot carry:
 * - a fallback that throws emits nothing (`fallback` fires with the returned promise,
 *   before it settles): fallback failures are invisible; wrap the fallback function with
 *   `observeFallback` to get them counted in the operation's `tasks` event;
 * - why it opened: it has one signal (error percentage over its volume threshold), so every
 *   open is reported as `error_rate`; it has no slow-call or rejection trip signal;
 * - it counts every failure, client faults included (a burst of 401s opens it); we
 *   classify each error for the window, but cannot stop opossum from tripping on them;
 * - cold starts, consecutive-open counts, token usage and cost are unknown to it;
 * - the real cooldown: we report its fixed `resetTimeout`.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { AdapterHost } from './adapter-host.ts';
import { classifyThrown } from '@breakerbox/protocol';

/** The part of opossum's `CircuitBreaker` the adapter uses. */
export interface OpossumLike {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly options?: { resetTimeout?: number };
}

/** Options of `attachOpossum`. */
export interface OpossumAdapterOptions {
  /** Absolute latency ceiling for the slow-call count, ms (default 30 000). */
  latencyCeilingMs?: number;
}

/** Attaches to an opossum breaker; returns a function that detaches. */
export function attachOpossum(bb: AdapterHost, key: BreakerKey, breaker: OpossumLike, options: OpossumAdapterOptions = {}): () => void {
  const rec = bb.externalKey(key, breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed', options.latencyCeilingMs);
  const cooldown = breaker.options?.resetTimeout;
  // opossum emits `close` / `open` before the trial call's own `success` / `failure`, so the
  // probe is remembered from `halfOpen` rather than read from the state.
  let probe = false;
  const takeProbe = () => {
    const p = probe;
    probe = false;
    return p;
  };
  const handlers: Record<string, (...args: unknown[]) => void> = {
    success: (_result, latency) => rec.attempt(num(latency), null, takeProbe()),
    failure: (err, latency) => {
      const code = (err as { code?: unknown } | undefined)?.code;
      // opossum reports its own refusals as failures too; they were no call to the provider.
      if (code === 'EOPENBREAKER' || code === 'ESEMLOCKED') return;
      rec.attempt(num(latency), classifyThrown(err), takeProbe());
    },
    reject: () => rec.shortCircuited(),
    semaphoreLocked: () => rec.rejected(),
    open: () => rec.transition('open', rec.state === 'half_open' ? 'probe_failed' : 'error_rate', cooldown),
    halfOpen: () => {
      probe = true;
      rec.transition('half_open', 'cooldown_elapsed');
    },
    close: () => rec.transition('closed', rec.state === 'half_open' ? 'probes_succeeded' : 'manual'),
  };
  for (const [event, fn] of Object.entries(handlers)) breaker.on(event, fn);
  return () => {
    for (const [event, fn] of Object.entries(handlers)) breaker.removeListener(event, fn);
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * Wraps an opossum fallback function so that its outcome is counted (as a level-4,
 * degraded task of `operation`, failed when the fallback throws) — opossum reports neither.
 */
export function observeFallback<A extends unknown[], T>(bb: AdapterHost, operation: string, fallback: (...args: A) => T | Promise<T>): (...args: A) => Promise<T> {
  return async (...args: A) => {
    try {
      const v = await fallback(...args);
      bb.recordTask(operation, { ok: true, level: 4, degraded: true, attempts: 0, costUsd: 0, fallbackInvoked: true, fallbackFailed: false });
      return v;
    } catch (err) {
      bb.recordTask(operation, { ok: false, degraded: false, attempts: 0, costUsd: 0, fallbackInvoked: true, fallbackFailed: true });
      throw err;
    }
  };
}

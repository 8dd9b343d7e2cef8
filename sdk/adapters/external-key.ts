/**
 * A key whose breaker lives in another library (opossum, cockatiel): the adapters feed it
 * what that library reports, and it turns that into the same protocol v1 telemetry as
 * the SDK's own breakers — a `window` per interval and a `transition` per state change.
 */
import type { BreakerKey, BreakerStateName, ErrorClass, TransitionReason } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import type { KeyStats } from '../telemetry/key-stats.ts';
import type { BreakerTransition } from '../policies/breaker.ts';

/** Records another library's breaker activity for one key. */
export class ExternalKey {
  private current: BreakerStateName;

  constructor(
    readonly key: BreakerKey,
    initial: BreakerStateName,
    private readonly stats: KeyStats,
    private readonly clock: Clock,
    private readonly emit: (t: BreakerTransition) => void,
    private readonly latencyCeilingMs: number,
  ) {
    this.current = initial;
    this.emit({ key, ts: clock.now(), from: null, to: initial, reason: 'created', rates: { error: 0, slow: 0 } });
  }

  /** The last state reported. */
  get state(): BreakerStateName {
    return this.current;
  }

  /** One call that was sent; `cls` null for a success. By default calls made while half-open count as probes. */
  attempt(latencyMs: number, cls: ErrorClass | null, probe = this.current === 'half_open'): void {
    const slow = cls === null && latencyMs > this.latencyCeilingMs;
    this.stats.attempt(latencyMs, cls, slow, false, false, probe);
  }

  /** A call refused by the library's bulkhead / semaphore. */
  rejected(): void {
    this.stats.rejection();
  }

  /** A call refused because the library's breaker was open. */
  shortCircuited(): void {
    this.stats.shortCircuit();
  }

  /** A state change reported by the library. */
  transition(to: BreakerStateName, reason: TransitionReason, cooldownMs?: number): void {
    if (to === this.current) return;
    const t: BreakerTransition = { key: this.key, ts: this.clock.now(), from: this.current, to, reason, rates: { error: 0, slow: 0 } };
    if (cooldownMs !== undefined) t.cooldownMs = cooldownMs;
    this.current = to;
    this.emit(t);
  }
}

/**
 * Circuit breaker for one key. Trips on any of three signals over a rolling window, each
 * only past a minimum volume: provider-side error share, slow-call share over an absolute
 * latency ceiling, and bulkhead rejections. Below that volume floor a run of consecutive
 * provider-side failures trips it (reason `error_rate`: the share over the run is 100%),
 * so a rarely called key is protected too. Client-fault classes are counted as calls but
 * never as errors. Half-open admits a hard-capped number of concurrent probes and closes
 * after K consecutive clean ones; a failed probe re-opens with a longer, jittered cooldown.
 *
 * State changes happen inside `tryPass` / `record` (the open → half-open step is taken
 * lazily by the first caller after the cooldown), so the breaker owns no timer.
 */
import type { BreakerKey, BreakerStateName, ErrorClass, TransitionReason } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import { Emitter, type EventSubscriber } from '../events.ts';
import { countsAgainstProvider } from '@breakerbox/protocol';
import { Counter, RollingWindow } from './rolling-window.ts';
import type { BreakerOptions } from './breaker-options.ts';

/** The breaker's state, as a discriminated union on `name`. */
export type BreakerState =
  | { readonly name: 'closed'; readonly since: number }
  | { readonly name: 'open'; readonly since: number; readonly until: number; readonly cooldownMs: number; readonly attempt: number }
  | { readonly name: 'half_open'; readonly since: number; readonly attempt: number }
  /**
   * Forced open: by `forceOpen` (`until: null`, until `forceClose`), or by a fleet decision
   * (docs/fleet.md) until `until` — past it the breaker goes half-open unless renewed. Under a
   * fleet outage the collector's probes are the fleet's half-open trial (a `recovered`
   * decision sends it half-open at once); once the hold has lasted the cooldown cap the
   * breaker also takes capped trials of its own (`FleetHold.trialAt`), so the feed never
   * leaves it waiting longer than its own breaker would. A drain admits none.
   */
  | { readonly name: 'forced_open'; readonly since: number; readonly until: number | null; readonly attempt: number };

/** What a fleet decision did to a breaker (`applied`/`renewed`), or why it did nothing. */
export type FleetEffect = 'applied' | 'renewed' | 'manual_override' | 'not_open' | 'overruled';

/** The fleet decision holding the breaker in `forced_open`. */
interface FleetHold {
  until: number;
  reason: 'fleet_outage' | 'fleet_drain';
  id: string | undefined;
  /**
   * When the breaker may take its next trial of its own under the hold: an outage's first
   * one the cooldown cap after the hold began, then one per cap (jittered below it, never
   * above). A long outage makes the collector's recovery probes slower than the cap
   * (server/fleet/recovery-probes.ts, and its probe budget can run out), and a fleet whose
   * instances waited only for them would come back later than the same fleet without the
   * feed. Infinity for a drain: on-call's hold takes no trial.
   */
  trialAt: number;
}

/** Emitted on every state change (and once, `from: null`, when the breaker is created). */
export interface BreakerTransition {
  key: BreakerKey;
  ts: number;
  from: BreakerStateName | null;
  to: BreakerStateName;
  reason: TransitionReason;
  cooldownMs?: number;
  attempt?: number;
  rates: { error: number; slow: number };
}

/** `tryPass` results. Non-negative: pass; negative: refused. */
export const PASS = 0;
export const PASS_PROBE = 1;
export const REFUSED_OPEN = -1;
export const REFUSED_HALF_OPEN_BUSY = -2;

/** A circuit breaker for one key. */
export class Breaker {
  private current: BreakerState;
  private readonly window: RollingWindow;
  private readonly transitions = new Emitter<BreakerTransition>();
  private probesInFlight = 0;
  private probeSuccesses = 0;
  private consecutiveOpens = 0;
  /** Provider-side failures in a row while closed (cold calls left out). */
  private failureRun = 0;
  /** The fleet decision holding the breaker open, if any. */
  private hold: FleetHold | null = null;
  /** The fleet outage whose time-to-live lapsed last (its renewals stopped arriving). */
  private lapsed: string | undefined;
  /** The fleet outage this breaker's own trials found over after it lapsed: its renewals no longer reopen a closed breaker. */
  private overruled: string | undefined;
  /** Subscribes to state changes; returns an unsubscribe function. */
  readonly onStateChange: EventSubscriber<BreakerTransition> = this.transitions.on;

  constructor(
    readonly key: BreakerKey,
    readonly options: Readonly<BreakerOptions>,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {
    this.window = new RollingWindow(options.windowMs, options.buckets);
    this.current = { name: 'closed', since: clock.now() };
  }

  /** Announces the breaker's first state (`from: null`, reason `created`). */
  announce(): void {
    this.emit(null, 'created');
  }

  /** The current state (reading it may move an expired open state to half-open). */
  get state(): BreakerState {
    const s = this.current;
    if ((s.name === 'open' || (s.name === 'forced_open' && s.until !== null)) && this.clock.now() >= s.until!) {
      this.releaseHold();
      this.toHalfOpen(this.attemptOf(s), 'cooldown_elapsed');
    } else if (s.name === 'half_open' && this.hold && this.clock.now() >= this.hold.until) {
      // The hold lapsed during a trial of its own: the trial goes on as an ordinary one.
      this.releaseHold();
    }
    return this.current;
  }

  /** Error and slow shares over the window right now. */
  rates(now = this.clock.now()): { error: number; slow: number } {
    const calls = this.window.total(now, Counter.Calls);
    if (calls === 0) return { error: 0, slow: 0 };
    return { error: this.window.total(now, Counter.Errors) / calls, slow: this.window.total(now, Counter.Slow) / calls };
  }

  /**
   * Asks to send one call. Returns `PASS`, `PASS_PROBE` (a half-open probe: report it
   * with `record(..., probe = true)` or `releaseProbe`), or a negative refusal code.
   */
  tryPass(now: number): number {
    const s = this.current;
    if (s.name === 'closed') return PASS;
    if (s.name === 'open') {
      if (now < s.until) return REFUSED_OPEN;
      this.toHalfOpen(s.attempt, 'cooldown_elapsed');
    } else if (s.name === 'forced_open') {
      if (s.until === null) return REFUSED_OPEN;
      if (now >= s.until) {
        // A fleet decision's time-to-live lapses here: never held open past it without renewal.
        this.releaseHold();
        this.toHalfOpen(s.attempt, 'cooldown_elapsed');
      } else if (this.hold && now >= this.hold.trialAt) {
        // A capped trial of its own under a fleet outage; the hold stays (see `FleetHold.trialAt`).
        this.toHalfOpen(s.attempt, 'cooldown_elapsed');
      } else return REFUSED_OPEN;
    }
    if (this.probesInFlight >= this.options.halfOpenMaxProbes) return REFUSED_HALF_OPEN_BUSY;
    this.probesInFlight++;
    return PASS_PROBE;
  }

  /** Gives back a probe slot that was never used (e.g. the bulkhead refused the call). */
  releaseProbe(): void {
    if (this.probesInFlight > 0) this.probesInFlight--;
  }

  /**
   * Records the outcome of a call that was let through. `cls` is null for a success;
   * `slow` marks a success over the latency ceiling; `cold` calls are left out of the
   * trip statistics.
   */
  record(now: number, cls: ErrorClass | null, slow: boolean, probe: boolean, cold: boolean): void {
    const failed = cls !== null && countsAgainstProvider(cls);
    if (probe) {
      this.releaseProbe();
      const s = this.current;
      if (s.name !== 'half_open') return;
      // A hold that lapsed during the trial no longer takes it back.
      if (this.hold && now >= this.hold.until) this.releaseHold();
      if (failed || slow) {
        if (this.hold) {
          // A trial of its own under a fleet outage failed: back into the hold, the next trial a cap later.
          this.hold.trialAt = now + this.holdTrialMs();
          this.setState({ name: 'forced_open', since: now, until: this.hold.until, attempt: s.attempt }, 'probe_failed');
        } else this.toOpen(now, 'probe_failed');
      } else if (cls === null && ++this.probeSuccesses >= this.options.halfOpenSuccesses) {
        this.window.clear();
        this.failureRun = 0;
        // Its own trials found the provider back, under the outage or after it lapsed unrenewed:
        // that outage's renewals no longer hold it (its own evidence is newer).
        if (this.hold) this.releaseHold();
        this.overruled = this.lapsed;
        this.lapsed = undefined;
        this.setState({ name: 'closed', since: now }, 'probes_succeeded');
      }
      return;
    }
    if (cold || this.current.name !== 'closed') return;
    this.window.add(now, Counter.Calls);
    if (failed) {
      this.failureRun++;
      this.window.add(now, Counter.Errors);
    } else {
      this.failureRun = 0;
      if (slow) this.window.add(now, Counter.Slow);
      else return; // a clean call cannot trip the breaker
    }
    this.check(now);
  }

  /** Records a bulkhead rejection (a signal of its own). */
  recordRejection(now: number): void {
    if (this.current.name !== 'closed') return;
    this.window.add(now, Counter.Rejections);
    this.check(now);
  }

  /** Opens the breaker until `forceClose` (reason `manual`); a fleet decision never overrides it. */
  forceOpen(): void {
    const s = this.current;
    this.hold = null;
    if (s.name !== 'forced_open' || s.until !== null) this.setState({ name: 'forced_open', since: this.clock.now(), until: null, attempt: this.attemptOf(s) }, 'manual');
  }

  /**
   * A fleet decision holds the breaker open for `ttlMs` from now (reason `fleet_outage` or
   * `fleet_drain`): `applied` when it opened it, `renewed` when it moved the deadline of an
   * earlier fleet decision (no transition; an outage's renewal also leaves a trial of its own
   * under the hold running), `manual_override` when the application forced it open itself.
   * Under an outage the breaker takes a capped trial of its own once the hold has lasted the
   * cooldown cap, then one per cap; past the deadline it goes half-open on its own. When its
   * own trials close it, renewals of that same outage (`id`) are `overruled` until the breaker
   * opens on its own again.
   */
  fleetOpen(ttlMs: number, reason: 'fleet_outage' | 'fleet_drain', id?: string): FleetEffect {
    const now = this.clock.now();
    const s = this.state;
    if (s.name === 'forced_open' && s.until === null) return 'manual_override';
    if (reason === 'fleet_outage' && id !== undefined && id === this.overruled && s.name !== 'open') return 'overruled';
    const until = now + ttlMs;
    const trialAt = () => (reason === 'fleet_outage' ? now + this.holdTrialMs() : Infinity);
    if (this.hold && (s.name === 'forced_open' || (s.name === 'half_open' && reason === 'fleet_outage'))) {
      // An outage's trials keep their schedule across renewals; a drain stops them.
      this.hold = { until, reason, id, trialAt: reason === this.hold.reason ? this.hold.trialAt : trialAt() };
      if (s.name === 'forced_open') this.current = { ...s, until };
      return 'renewed';
    }
    const attempt = s.name === 'open' ? s.attempt : this.nextAttempt(now);
    this.hold = { until, reason, id, trialAt: trialAt() };
    this.setState({ name: 'forced_open', since: now, until, attempt }, reason, undefined, ttlMs);
    return 'applied';
  }

  /**
   * A fleet recovery or release: an open breaker (its own cooldown, or a fleet decision)
   * goes half-open now (reason `fleet_recovered` / `fleet_release`); the usual probe cap and
   * consecutive-success rule decide when it closes. `not_open` when closed or half-open already.
   */
  fleetHalfOpen(reason: 'fleet_recovered' | 'fleet_release'): FleetEffect {
    const s = this.state;
    if (s.name === 'forced_open' && s.until === null) return 'manual_override';
    this.hold = null;
    this.lapsed = undefined;
    if (s.name !== 'open' && s.name !== 'forced_open') return 'not_open';
    this.toHalfOpen(this.attemptOf(s), reason);
    return 'applied';
  }

  /** A fleet hold ends by its time-to-live: an outage's id is kept, so its late renewals can be told apart. */
  private releaseHold(): void {
    if (this.hold?.reason === 'fleet_outage') this.lapsed = this.hold.id;
    this.hold = null;
  }

  private attemptOf(s: BreakerState): number {
    return s.name === 'closed' ? Math.max(1, this.consecutiveOpens) : s.attempt;
  }

  /** Closes the breaker now, forgetting the window and the consecutive-open count (reason `manual`). */
  forceClose(): void {
    this.window.clear();
    this.failureRun = 0;
    this.consecutiveOpens = 0;
    this.hold = null;
    this.lapsed = undefined;
    this.overruled = undefined;
    if (this.current.name !== 'closed') this.setState({ name: 'closed', since: this.clock.now() }, 'manual');
  }

  private check(now: number): void {
    const o = this.options;
    const calls = this.window.total(now, Counter.Calls);
    const rejections = this.window.total(now, Counter.Rejections);
    if (calls + rejections < o.minCalls) {
      if (o.consecutiveFailures > 0 && this.failureRun >= o.consecutiveFailures) this.toOpen(now, 'error_rate');
      return;
    }
    if (calls > 0 && this.window.total(now, Counter.Errors) / calls >= o.errorThreshold) this.toOpen(now, 'error_rate');
    else if (calls > 0 && this.window.total(now, Counter.Slow) / calls >= o.slowThreshold) this.toOpen(now, 'slow_calls');
    else if (rejections >= o.rejectionThreshold) this.toOpen(now, 'rejections');
  }

  /** The consecutive-open count for an open starting now. */
  private nextAttempt(now: number): number {
    const prev = this.current;
    if (prev.name === 'closed' && now - prev.since >= this.options.stableResetMs) this.consecutiveOpens = 0;
    return ++this.consecutiveOpens;
  }

  /** The wait before a trial of its own under a fleet outage: the cooldown cap, jittered below it only, ms. */
  private holdTrialMs(): number {
    const o = this.options;
    return Math.max(0, Math.round(o.maxCooldownMs * (1 - o.cooldownJitter * this.random())));
  }

  /** The jittered cooldown of the `attempt`-th consecutive open, ms. */
  private cooldownOf(attempt: number): number {
    const o = this.options;
    const base = Math.min(o.maxCooldownMs, o.cooldownMs * o.cooldownMultiplier ** (attempt - 1));
    return Math.max(0, Math.round(base * (1 + o.cooldownJitter * (2 * this.random() - 1))));
  }

  private toOpen(now: number, reason: TransitionReason): void {
    const attempt = this.nextAttempt(now);
    const cooldownMs = this.cooldownOf(attempt);
    const rates = this.rates(now);
    this.window.clear();
    this.failureRun = 0;
    this.setState({ name: 'open', since: now, until: now + cooldownMs, cooldownMs, attempt }, reason, rates);
  }

  private toHalfOpen(attempt: number, reason: TransitionReason): void {
    this.probeSuccesses = 0;
    this.probesInFlight = 0;
    this.setState({ name: 'half_open', since: this.clock.now(), attempt }, reason);
  }

  private setState(next: BreakerState, reason: TransitionReason, rates?: { error: number; slow: number }, cooldownMs?: number): void {
    const from = this.current.name;
    this.current = next;
    this.emit(from, reason, rates, cooldownMs);
  }

  private emit(from: BreakerStateName | null, reason: TransitionReason, rates?: { error: number; slow: number }, cooldownMs?: number): void {
    if (this.transitions.size === 0) return;
    const s = this.current;
    const ev: BreakerTransition = { key: this.key, ts: s.since, from, to: s.name, reason, rates: rates ?? this.rates(s.since) };
    if (s.name === 'open') {
      ev.cooldownMs = s.cooldownMs;
      ev.attempt = s.attempt;
    } else if (cooldownMs !== undefined) {
      // A fleet decision's time-to-live, reported like a cooldown.
      ev.cooldownMs = cooldownMs;
    }
    this.transitions.emit(ev);
  }
}

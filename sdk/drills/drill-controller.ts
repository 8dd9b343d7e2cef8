/**
 * The SDK instance's side of failure drills (docs/drills.md): accepts a drill command from
 * the fleet feed only when drills are enabled in the options and the command names this
 * instance's service, runs one drill at a time (a newer command replaces it; `step_ms: 0`
 * stops it), and ends it on a background timer of the SDK's clock. While a run is on,
 * calls whose chain starts at a drilled key are its traffic (`trafficFor`).
 */
import type { BreakerKey, DrillCommand, DrillKind } from '@breakerbox/protocol';
import type { Clock, TimerHandle } from '../clock.ts';
import { Emitter, type EventSubscriber } from '../events.ts';
import { DrillRun } from './drill-run.ts';

/** The `drills` option of `createBreakerbox`. */
export interface DrillOptions {
  /**
   * Accept failure drills from the collector for this service (default false). Meant for
   * staging only: enable it from the environment, e.g.
   * `drills: { enabled: process.env.BREAKERBOX_DRILLS === 'on' }`, and never set that
   * variable in production.
   */
  enabled?: boolean;
}

/**
 * Why a drill command did nothing. `disabled`: it arrived after `close()` (an instance with
 * drills off has no controller and reports nothing).
 */
export const DRILL_IGNORE_REASONS = ['disabled', 'other_service', 'invalid', 'duplicate', 'not_running'] as const;
/** One of DRILL_IGNORE_REASONS. */
export type DrillIgnoreReason = (typeof DRILL_IGNORE_REASONS)[number];
/** Why a run ended. */
export const DRILL_END_REASONS = ['finished', 'stopped', 'replaced', 'closed'] as const;

/** What one drill command (or a run's end) did, as `onDrill` listeners see it. */
export type DrillOutcome =
  | { readonly outcome: 'started'; readonly command: DrillCommand; readonly endsAt: number }
  | { readonly outcome: 'ended'; readonly id: string; readonly why: (typeof DRILL_END_REASONS)[number] }
  | { readonly outcome: 'ignored'; readonly command: DrillCommand | null; readonly why: DrillIgnoreReason };

/** The drill state of an instance. */
export type DrillState =
  | { readonly state: 'off' }
  | { readonly state: 'idle' }
  | { readonly state: 'running'; readonly id: string; readonly kind: DrillKind; readonly endsAt: number };

/** What the controller needs of the SDK instance. */
export interface DrillControllerHost {
  /** A run ended: its last counters are sent in its batches, which then end. */
  finished(run: DrillRun): void;
  /**
   * One drill of a run ended and the next begins: the counters so far are sent now, so no
   * window spans two drills (the collector judges each drill on the windows whose midpoint
   * falls in its span; a 10 s window over 3 s drills would be judged as one of them).
   */
  stepEnded?(run: DrillRun): void;
}

/** See the module comment. */
export class DrillController {
  private run: DrillRun | undefined;
  private timer: TimerHandle | undefined;
  /** The next boundary between two drills of the run. */
  private stepTimer: TimerHandle | undefined;
  /** The last command id acted on: a feed that reconnects and replays it does not restart it. */
  private lastId: string | undefined;
  private closed = false;
  private readonly outcomes = new Emitter<DrillOutcome>();
  /** Subscribes to what each drill command did, and to each run's end. */
  readonly onDrill: EventSubscriber<DrillOutcome> = this.outcomes.on;

  constructor(
    private readonly enabled: boolean,
    private readonly service: string | undefined,
    private readonly clock: Clock,
    private readonly latencyBounds: readonly number[],
    private readonly host: DrillControllerHost,
  ) {}

  /** The state now. */
  state(): DrillState {
    if (!this.enabled) return { state: 'off' };
    const run = this.run;
    const kind = run?.kindAt(this.clock.now());
    return run && kind ? { state: 'running', id: run.id, kind, endsAt: run.endsAt } : { state: 'idle' };
  }

  /** The running drill, when a call whose chain starts at `primary` is its traffic. Cheap when no drill runs. */
  trafficFor(primary: BreakerKey): DrillRun | undefined {
    const run = this.run;
    return run !== undefined && run.drills(primary) ? run : undefined;
  }

  /** The running drill (for routing transitions), or undefined. */
  get current(): DrillRun | undefined {
    return this.run;
  }

  /** Applies one command from the feed (`null`: an event that did not parse). Never throws. */
  apply(command: DrillCommand | null): DrillOutcome {
    const out = this.decide(command);
    if (this.outcomes.size) this.outcomes.emit(out);
    return out;
  }

  /** Ends any run; later commands are ignored. */
  close(): void {
    if (this.closed) return;
    this.stop('closed');
    this.closed = true;
  }

  private decide(command: DrillCommand | null): DrillOutcome {
    if (command === null) return { outcome: 'ignored', command, why: 'invalid' };
    if (!this.enabled || this.closed) return { outcome: 'ignored', command, why: 'disabled' };
    if (command.service !== this.service) return { outcome: 'ignored', command, why: 'other_service' };
    if (command.step_ms === 0) {
      // A stop ends whatever drill runs: an instance runs one at a time.
      if (!this.run) return { outcome: 'ignored', command, why: 'not_running' };
      this.lastId = command.id;
      return this.stop('stopped')!;
    }
    if (command.id === this.lastId) return { outcome: 'ignored', command, why: 'duplicate' };
    if (this.run) this.emitEnded(this.stop('replaced'));
    this.lastId = command.id;
    const now = this.clock.now();
    const run = new DrillRun(command, now, () => this.clock.now(), this.latencyBounds);
    this.run = run;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.run === run) this.emitEnded(this.stop('finished'));
    }, run.endsAt - now, true);
    this.scheduleStep(run, 1);
    return { outcome: 'started', command, endsAt: run.endsAt };
  }

  /** Cuts the run's windows where drill `k` begins (the last drill's end is the run's). */
  private scheduleStep(run: DrillRun, k: number): void {
    if (k >= run.command.kinds.length) return;
    const at = run.startedAt + k * run.command.step_ms;
    this.stepTimer = this.clock.setTimeout(() => {
      this.stepTimer = undefined;
      if (this.run !== run) return;
      try {
        this.host.stepEnded?.(run);
      } catch {
        // Telemetry of a drill must never reach the host.
      }
      this.scheduleStep(run, k + 1);
    }, Math.max(0, at - this.clock.now()), true);
  }

  private stop(why: 'finished' | 'stopped' | 'replaced' | 'closed'): DrillOutcome | undefined {
    const run = this.run;
    if (!run) return undefined;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    if (this.stepTimer !== undefined) this.clock.clearTimeout(this.stepTimer);
    this.timer = undefined;
    this.stepTimer = undefined;
    this.run = undefined;
    run.end(this.clock.now());
    try {
      this.host.finished(run);
    } catch {
      // Telemetry of a drill must never reach the host.
    }
    return { outcome: 'ended', id: run.id, why };
  }

  private emitEnded(out: DrillOutcome | undefined): void {
    if (out && this.outcomes.size) this.outcomes.emit(out);
  }
}

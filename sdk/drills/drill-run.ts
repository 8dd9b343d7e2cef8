/**
 * One drill run in an SDK instance (docs/drills.md, "In the SDK"): the command, when it was
 * received, which fault is due now (its `kinds` one after another, `step_ms` each, measured
 * from receipt on the SDK's clock), and the drill traffic's own window and task counters.
 * Memory is bounded by the keys and operations in use; one run at a time per instance.
 */
import type { BreakerKey, DrillCommand, DrillKind, TelemetryEvent } from '@breakerbox/protocol';
import { keyId } from '@breakerbox/protocol';
import { KeyStats } from '../telemetry/key-stats.ts';
import { TaskStats } from '../telemetry/task-stats.ts';
import type { DrillTraffic } from './drill-traffic.ts';
import { drainEvents } from '../telemetry/drain-events.ts';

/** A running drill. */
export class DrillRun implements DrillTraffic {
  readonly id: string;
  private readonly keys: Set<string> | undefined;
  private readonly windows = new Map<string, KeyStats>();
  private readonly taskStats = new Map<string, TaskStats>();
  /** Set once the run is over (ended by time, a stop, or a newer drill). */
  private endedAt: number | undefined;

  constructor(
    readonly command: DrillCommand,
    readonly startedAt: number,
    private readonly now: () => number,
    private readonly latencyBounds: readonly number[],
  ) {
    this.id = command.id;
    this.keys = command.keys ? new Set(command.keys.map(keyId)) : undefined;
  }

  /** When the last of its kinds ends, ms since the epoch. */
  get endsAt(): number {
    return this.startedAt + this.command.step_ms * this.command.kinds.length;
  }

  /** The drill due at `now`, or undefined once the run is over. */
  kindAt(now: number): DrillKind | undefined {
    if (this.endedAt !== undefined || now >= this.endsAt) return undefined;
    return this.command.kinds[Math.floor((now - this.startedAt) / this.command.step_ms)];
  }

  /** Whether a call whose chain starts at `primary` is this drill's traffic (asked when the call starts). */
  drills(primary: BreakerKey): boolean {
    return this.kindAt(this.now()) !== undefined && (this.keys === undefined || this.keys.has(keyId(primary)));
  }

  /** Whether the run counted traffic on `key` (its transitions go to the drill's batches while it runs). */
  touched(key: BreakerKey): boolean {
    return this.windows.has(keyId(key));
  }

  /** Ends the run now; its traffic still in flight is counted but no fault is injected any more. */
  end(now: number): void {
    this.endedAt ??= now;
  }

  keyStats(key: BreakerKey): KeyStats {
    const id = keyId(key);
    let s = this.windows.get(id);
    if (!s) {
      s = new KeyStats(key, this.latencyBounds, this.startedAt);
      this.windows.set(id, s);
    }
    return s;
  }

  tasks(operation: string): TaskStats {
    let t = this.taskStats.get(operation);
    if (!t) {
      t = new TaskStats(operation, this.startedAt);
      this.taskStats.set(operation, t);
    }
    return t;
  }

  faultFor(key: BreakerKey, primary: boolean): DrillKind | undefined {
    const kind = this.kindAt(this.now());
    if (kind === undefined) return undefined;
    // Named keys are drilled wherever they sit in a chain; without names, every chain's primary.
    return (this.keys ? this.keys.has(keyId(key)) : primary) ? kind : undefined;
  }

  /** The drill traffic's windows and tasks since the last collection. */
  collect(now: number): TelemetryEvent[] {
    return drainEvents(this.taskStats.values(), now, drainEvents(this.windows.values(), now));
  }
}

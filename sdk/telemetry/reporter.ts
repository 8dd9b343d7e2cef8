/**
 * The telemetry reporter: aggregates `window` and `tasks` events per interval, sends
 * `transition` and `config` events promptly (coalesced), and hands everything to the
 * shared telemetry sender (`@breakerbox/protocol`), which batches, gzips, retries under
 * the same `batch_id`, bounds its buffer and never hurts the host.
 *
 * Nothing here throws into or waits on the caller's model calls; every timer is unref'd.
 */
import { hostname } from 'node:os';
import { TelemetrySender, newBatchId, type PassthroughSource, type SenderError, type SenderOptions, type SenderStats, type TelemetryEvent } from '@breakerbox/protocol';
import { systemClock, type Clock, type TimerHandle } from '../clock.ts';

export { newBatchId };

/** The SDK's name on the wire (`source.sdk`). */
export const SDK_NAME = 'breakerbox-js/0.1.0';

/** Reporter settings; `url` and `service` are required, the rest have defaults. */
export interface ReporterOptions {
  /** Collector base URL; batches go to `<url>/v1/telemetry`. */
  url: string;
  /** Ingest token (`Authorization: Bearer`). */
  token?: string | undefined;
  /** `source.service`. */
  service: string;
  /** `source.instance` (default `<hostname>-<pid>`). */
  instance?: string | undefined;
  /** Window/tasks aggregation interval, ms (default 10 000). */
  intervalMs?: number;
  /** Transitions and config events wait at most this long to be sent together, ms (default 1 000). */
  coalesceMs?: number;
  /** Events kept while the collector is unreachable, the batch in flight included; the oldest are dropped beyond it (default 10 000). */
  maxBufferedEvents?: number;
  /** Events per batch (protocol maximum 5 000). */
  maxBatchEvents?: number;
  /** Compress bodies (default true). */
  gzip?: boolean;
  /** Per-request timeout, ms (default 5 000). */
  requestTimeoutMs?: number;
  /** Bytes of a collector's reply read at most (default 16 KiB). */
  maxReplyBytes?: number;
  /** First retry delay after a failed push, ms (default 1 000); doubles up to `maxBackoffMs` (default 60 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  clock?: Clock;
  random?: () => number;
  /** Running totals of fleet decisions applied and ignored (set by the SDK instance when its feed is on). */
  fleetTotals?: () => { applied: number; ignored: number };
  /** The instance's passthrough tally: each batch takes its counts (set by the SDK instance). */
  passthrough?: PassthroughSource;
}

/** Counters describing the reporter's health. */
export type ReporterStats = SenderStats;

/** A push failure, for logging by the application. */
export type ReporterError = SenderError;

/** Where the reporter pulls interval aggregates from. */
export interface TelemetrySource {
  collect(now: number): TelemetryEvent[];
  /** The running drill's aggregates (docs/drills.md), sent in batches of their own with its `drill_id`. */
  collectDrill?(now: number): { id: string; events: TelemetryEvent[] } | undefined;
}

/** Aggregates and pushes telemetry; see the module comment for its guarantees. */
export class TelemetryReporter {
  private readonly clock: Clock;
  private readonly sender: TelemetrySender;
  private readonly intervalMs: number;
  private readonly coalesceMs: number;
  private readonly requestTimeoutMs: number;
  private intervalTimer: TimerHandle | undefined;
  private coalesceTimer: TimerHandle | undefined;
  private closed = false;
  private readonly senderOptions: SenderOptions;
  private readonly listeners = new Set<(e: ReporterError) => void>();
  /** The running drill's sender: one at a time, so drill telemetry's memory is one more bounded buffer. */
  private drill: { id: string; sender: TelemetrySender } | undefined;
  /** The last ended drill's sender sending what it holds (`close` waits for it). */
  private retiring: Promise<number> | undefined;
  /** Subscribes to push failures; returns an unsubscribe function. */
  readonly onError: (listener: (e: ReporterError) => void) => () => void;

  constructor(
    options: ReporterOptions,
    private readonly source: TelemetrySource,
  ) {
    this.clock = options.clock ?? systemClock;
    this.intervalMs = options.intervalMs ?? 10_000;
    this.coalesceMs = options.coalesceMs ?? 1_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
    this.senderOptions = {
      url: options.url,
      token: options.token,
      source: { service: options.service, instance: options.instance ?? `${hostname()}-${process.pid}`, sdk: SDK_NAME },
      requestTimeoutMs: this.requestTimeoutMs,
      clock: this.clock,
      ...pick(options, ['maxBufferedEvents', 'maxBatchEvents', 'gzip', 'maxReplyBytes', 'backoffMs', 'maxBackoffMs', 'random']),
    };
    this.sender = new TelemetrySender({ ...this.senderOptions, ...pick(options, ['fleetTotals', 'passthrough']) });
    this.onError = (listener) => {
      this.listeners.add(listener);
      const off = this.sender.onError(listener);
      const offDrill = this.drill?.sender.onError(listener);
      return () => {
        this.listeners.delete(listener);
        off();
        offDrill?.();
      };
    };
    this.scheduleInterval();
  }

  /** Queues one event. `urgent` events (transitions, config) are sent within `coalesceMs`. Never throws. */
  push(event: TelemetryEvent, urgent = false): void {
    if (this.closed) return;
    this.sender.enqueue([event]);
    if (urgent && this.coalesceTimer === undefined) {
      this.coalesceTimer = this.clock.setTimeout(() => {
        this.coalesceTimer = undefined;
        this.sender.kick();
      }, this.coalesceMs, true);
    }
  }

  /** Queues one event of drill `drillId`'s traffic, for its own batches. Never throws. */
  pushDrill(drillId: string, event: TelemetryEvent, urgent = false): void {
    if (this.closed) return;
    const s = this.drillSender(drillId);
    s.enqueue([event]);
    if (urgent) s.kick();
  }

  /**
   * The one early window cut: aggregates cut before the interval's end are queued and sent at
   * once, without waiting to coalesce. Two causes: a key's failure onset (its window, in the
   * instance's batches) and a boundary between two drills of a run (`drillId`: in that drill's
   * batches, so no window spans two drills). Never throws.
   */
  cutNow(events: TelemetryEvent[], drillId?: string): void {
    if (this.closed || events.length === 0) return;
    const s = drillId === undefined ? this.sender : this.drillSender(drillId);
    s.enqueue(events);
    s.kick();
  }

  /** The drill ended: its last aggregates are sent (bounded by the request timeout) and its sender stops. */
  finishDrill(drillId: string, events: TelemetryEvent[]): void {
    if (this.closed) return;
    const s = this.drillSender(drillId);
    if (events.length) s.enqueue(events);
    this.drill = undefined;
    this.retiring = s.close(this.requestTimeoutMs);
  }

  private drillSender(id: string): TelemetrySender {
    if (this.drill?.id === id) return this.drill.sender;
    // A newer drill replaces the older one's sender, which sends what it holds and stops.
    if (this.drill) this.retiring = this.drill.sender.close(this.requestTimeoutMs);
    const sender = new TelemetrySender({ ...this.senderOptions, drillId: id, batchIdPrefix: 'drill-' });
    for (const l of this.listeners) sender.onError(l);
    this.drill = { id, sender };
    return sender;
  }

  /** Health counters. */
  stats(): ReporterStats {
    return this.sender.stats();
  }

  /**
   * Collects the current interval and sends everything buffered, waiting at most
   * `timeoutMs` (default: the request timeout). Resolves in all cases.
   */
  async flush(timeoutMs = this.requestTimeoutMs): Promise<void> {
    this.collect();
    await Promise.all([this.sender.flush(timeoutMs), this.drill?.sender.flush(timeoutMs)]);
  }

  /** Flushes (bounded by `timeoutMs`), then stops all timers and sockets; later pushes are ignored. */
  async close(timeoutMs?: number): Promise<void> {
    if (this.closed) return;
    this.collect();
    this.closed = true;
    for (const t of [this.intervalTimer, this.coalesceTimer]) if (t !== undefined) this.clock.clearTimeout(t);
    await Promise.all([this.sender.close(timeoutMs ?? this.requestTimeoutMs), this.drill?.sender.close(timeoutMs ?? this.requestTimeoutMs), this.retiring]);
  }

  private scheduleInterval(): void {
    this.intervalTimer = this.clock.setTimeout(() => {
      if (this.closed) return;
      this.collect();
      this.sender.kick();
      this.drill?.sender.kick();
      this.scheduleInterval();
    }, this.intervalMs, true);
  }

  private collect(): void {
    try {
      const now = this.clock.now();
      const events = this.source.collect(now);
      if (events.length) this.sender.enqueue(events);
      const drill = this.source.collectDrill?.(now);
      if (drill && drill.events.length) this.drillSender(drill.id).enqueue(drill.events);
    } catch {
      // A bug in aggregation must not take the host down; the interval is lost.
    }
  }
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

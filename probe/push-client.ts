/**
 * Pushes probe events to the collector through the shared telemetry sender
 * (`@breakerbox/protocol`: batching, gzip, one batch in flight, retries under the same
 * `batch_id` with backoff and `Retry-After`, a bounded buffer whose drops are reported to
 * the collector as `dropped_events`). This file adds what a prober needs on top: a
 * periodic flush, a send as soon as a batch is full, and log lines for operators.
 */
import { TelemetrySender, type ProbeEvent } from '@breakerbox/protocol';
import type { Logger } from './logger.ts';

export const PROBE_SDK_NAME = 'breakerbox-probe/0.1.0';

/** Options of `PushClient`. */
export interface PushClientOptions {
  /** Collector base URL, e.g. `http://collector:8080`. */
  url: string;
  /** Ingest token (sent as a bearer token, never logged). */
  token: string;
  /** The prober's location: `source.instance`. */
  location: string;
  logger: Logger;
  batchSize?: number;
  flushIntervalMs?: number;
  bufferCap?: number;
  gzip?: boolean;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  requestTimeoutMs?: number;
  random?: () => number;
}

/** Counters of the push client. */
export interface PushStats {
  accepted: number;
  batches: number;
  /** Failed push attempts that will be retried. */
  retries: number;
  /** Events dropped because the buffer was full. */
  dropped: number;
  /** Events of batches the collector refused as invalid. */
  rejected: number;
}

/** Batches and sends probe events to the collector. */
export class PushClient {
  private readonly sender: TelemetrySender;
  private readonly log: Logger;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private lastDropLog = 0;
  /** Stops the push-failure log: nothing is logged after the close's own line (a push that fails after it has been counted as lost). */
  private stopErrorLog: () => void;

  constructor(opts: PushClientOptions) {
    this.log = opts.logger;
    this.batchSize = opts.batchSize ?? 500;
    this.flushIntervalMs = opts.flushIntervalMs ?? 5_000;
    this.sender = new TelemetrySender({
      url: opts.url,
      token: opts.token,
      source: { service: 'probe', instance: opts.location, sdk: PROBE_SDK_NAME },
      batchIdPrefix: `probe-${opts.location}-`,
      maxBatchEvents: this.batchSize,
      maxBufferedEvents: Math.max(opts.bufferCap ?? 10_000, this.batchSize),
      gzip: opts.gzip ?? true,
      backoffMs: opts.initialBackoffMs ?? 500,
      maxBackoffMs: opts.maxBackoffMs ?? 60_000,
      requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
      ...(opts.random ? { random: opts.random } : {}),
    });
    this.stopErrorLog = this.sender.onError((e) => {
      if (e.dropped) this.log.error('collector refused a batch: dropped (a bug in the prober or a protocol mismatch)', { status: e.status ?? null, detail: e.message });
      else if (e.auth) this.log.error('collector refused the ingest token; will keep retrying', { status: e.status ?? null });
      else this.log.warn('collector push failed; will retry', { status: e.status ?? null, error: e.message, retry_after_ms: e.retryAfterMs ?? null, pending: e.pending });
    });
  }

  /** Counters (a snapshot). */
  get stats(): PushStats {
    const s = this.sender.stats();
    return { accepted: s.sent, batches: s.batchesSent, retries: s.failures - s.refused, dropped: s.dropped - s.refused, rejected: s.refused };
  }

  /** Events waiting to be sent (buffered plus the batch in flight). */
  get pending(): number {
    return this.sender.pending;
  }

  /** Starts the periodic flush. */
  start(): void {
    this.timer ??= setInterval(() => this.sender.kick(), this.flushIntervalMs);
    this.timer.unref();
  }

  /** Queues one event; never blocks and never throws. */
  push(event: ProbeEvent): void {
    const before = this.sender.stats().dropped;
    this.sender.enqueue([event]);
    const dropped = this.sender.stats().dropped;
    if (dropped > before && Date.now() - this.lastDropLog > 60_000) {
      this.lastDropLog = Date.now();
      this.log.warn('push buffer full: dropping the oldest probe events', { dropped_total: this.stats.dropped });
    }
    // A probe the collector asked for is waited on there: sent at once, not at the next flush.
    if (this.sender.pending >= this.batchSize || event.trigger === 'suspicion') this.sender.kick();
  }

  /** Sends everything buffered, retrying until `timeoutMs` has passed. Returns what is left unsent. */
  flush(timeoutMs: number): Promise<number> {
    return this.sender.flush(timeoutMs, true);
  }

  /** Final flush, then releases the connection. Logs what could not be sent. */
  async close(timeoutMs: number): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    // The sender holds the loop while a flush is awaited (protocol/telemetry-sender.ts): the
    // final push is confirmed before the process ends, bounded by timeoutMs.
    await this.sender.flush(timeoutMs, true);
    const left = await this.sender.close(0);
    this.stopErrorLog();
    if (left > 0) this.log.error('collector unreachable at shutdown: probe events lost', { lost: left });
    return left;
  }
}

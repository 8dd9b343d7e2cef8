/**
 * The telemetry reporter: aggregates `window` and `tasks` events per interval, sends
 * `transition` and `config` events promptly (coalesced), and pushes protocol v1 batches
 * to `POST /v1/telemetry` over undici, gzip-compressed, each with a unique `batch_id`
 * that is kept across retries so the collector can deduplicate.
 *
 * It must never hurt the host: nothing here throws into or waits on the caller's model
 * calls; every timer is unref'd; memory is bounded (oldest events dropped first, drops
 * counted and reported once the collector answers again); 429/5xx/network failures back
 * off exponentially with jitter and honour `Retry-After`.
 */
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type { TelemetryBatch, TelemetryEvent } from '../protocol.ts';
import { systemClock, type Clock, type TimerHandle } from '../clock.ts';
import { parseRetryAfter } from '../errors/classify.ts';
import { Emitter, type EventSubscriber } from '../events.ts';

const gzipAsync = promisify(gzip);

/** The SDK's name on the wire (`source.sdk`). */
export const SDK_NAME = 'breakerbox-js/0.1.0';

/** Reporter settings; `url` and `service` are required, the rest have defaults. */
export interface ReporterOptions {
  /** Collector base URL; batches go to `<url>/v1/telemetry`. */
  url: string;
  /** Ingest token (`Authorization: Bearer`). */
  token?: string;
  /** `source.service`. */
  service: string;
  /** `source.instance` (default `<hostname>-<pid>`). */
  instance?: string;
  /** Window/tasks aggregation interval, ms (default 10 000). */
  intervalMs?: number;
  /** Transitions and config events wait at most this long to be sent together, ms (default 1 000). */
  coalesceMs?: number;
  /** Events kept while the collector is unreachable; the oldest are dropped beyond it (default 10 000). */
  maxBufferedEvents?: number;
  /** Events per batch (protocol maximum 5 000). */
  maxBatchEvents?: number;
  /** Compress bodies (default true). */
  gzip?: boolean;
  /** Per-request timeout, ms (default 5 000). */
  requestTimeoutMs?: number;
  /** First retry delay after a failed push, ms (default 1 000); doubles up to `maxBackoffMs` (default 60 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** undici dispatcher (tests, proxies). */
  dispatcher?: Dispatcher;
  clock?: Clock;
  random?: () => number;
}

/** Counters describing the reporter's health. */
export interface ReporterStats {
  /** Events acknowledged by the collector. */
  sent: number;
  /** Events dropped: buffer overflow, or a batch the collector refused as invalid. */
  dropped: number;
  /** Events waiting (buffered and in flight). */
  buffered: number;
  batchesSent: number;
  /** Failed push attempts (network, timeout, 429, 5xx, refusals). */
  failures: number;
  lastError?: string;
}

/** A push failure, for logging by the application. */
export interface ReporterError {
  status?: number;
  message: string;
  /** The batch was refused for good (400/413 of one event) and its events dropped. */
  dropped: boolean;
}

/** Where the reporter pulls interval aggregates from. */
export interface TelemetrySource {
  collect(now: number): TelemetryEvent[];
}

interface InFlight {
  id: string;
  events: TelemetryEvent[];
}

/** Pushes telemetry; see the module comment for its guarantees. */
export class TelemetryReporter {
  private readonly o: Required<Omit<ReporterOptions, 'token' | 'dispatcher' | 'instance'>> & Pick<ReporterOptions, 'token' | 'dispatcher'> & { instance: string };
  private readonly clock: Clock;
  private buffer: TelemetryEvent[] = [];
  private current: InFlight | undefined;
  private droppedUnreported = 0;
  private readonly s: ReporterStats = { sent: 0, dropped: 0, buffered: 0, batchesSent: 0, failures: 0 };
  private intervalTimer: TimerHandle | undefined;
  private coalesceTimer: TimerHandle | undefined;
  private retryTimer: TimerHandle | undefined;
  private backoff = 0;
  private retryAt = 0;
  private sending: Promise<void> | undefined;
  private closed = false;
  private readonly errors = new Emitter<ReporterError>();
  private readonly endpoint: string;
  /** Subscribes to push failures; returns an unsubscribe function. */
  readonly onError: EventSubscriber<ReporterError> = this.errors.on;

  constructor(
    options: ReporterOptions,
    private readonly source: TelemetrySource,
  ) {
    this.clock = options.clock ?? systemClock;
    this.o = {
      url: options.url,
      token: options.token,
      service: options.service,
      instance: options.instance ?? `${hostname()}-${process.pid}`,
      intervalMs: options.intervalMs ?? 10_000,
      coalesceMs: options.coalesceMs ?? 1_000,
      maxBufferedEvents: options.maxBufferedEvents ?? 10_000,
      maxBatchEvents: Math.min(5_000, options.maxBatchEvents ?? 5_000),
      gzip: options.gzip ?? true,
      requestTimeoutMs: options.requestTimeoutMs ?? 5_000,
      backoffMs: options.backoffMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      dispatcher: options.dispatcher,
      clock: this.clock,
      random: options.random ?? Math.random,
    };
    this.endpoint = new URL('v1/telemetry', this.o.url.endsWith('/') ? this.o.url : `${this.o.url}/`).toString();
    this.scheduleInterval();
  }

  /** Queues one event. `urgent` events (transitions, config) are sent within `coalesceMs`. Never throws. */
  push(event: TelemetryEvent, urgent = false): void {
    if (this.closed) return;
    this.enqueue([event]);
    if (urgent && this.coalesceTimer === undefined) {
      this.coalesceTimer = this.clock.setTimeout(() => {
        this.coalesceTimer = undefined;
        this.kick();
      }, this.o.coalesceMs, true);
    }
  }

  /** Health counters. */
  stats(): ReporterStats {
    return { ...this.s, buffered: this.buffer.length + (this.current?.events.length ?? 0) };
  }

  /**
   * Collects the current interval and sends everything buffered, waiting at most
   * `timeoutMs` (default: the request timeout). Resolves in all cases.
   */
  async flush(timeoutMs = this.o.requestTimeoutMs): Promise<void> {
    this.collect();
    const until = this.clock.now() + timeoutMs;
    // Ignore a pending backoff: a flush is an explicit request to try now.
    this.retryAt = 0;
    while ((this.current || this.buffer.length) && this.clock.now() < until) {
      const before = this.s.failures;
      await this.withTimeout(this.sendAll(), until - this.clock.now());
      if (this.s.failures !== before) break;
    }
  }

  /** Flushes, then stops all timers; later pushes are ignored. */
  async close(timeoutMs?: number): Promise<void> {
    if (this.closed) return;
    await this.flush(timeoutMs);
    this.closed = true;
    for (const t of [this.intervalTimer, this.coalesceTimer, this.retryTimer]) if (t !== undefined) this.clock.clearTimeout(t);
  }

  private scheduleInterval(): void {
    this.intervalTimer = this.clock.setTimeout(() => {
      if (this.closed) return;
      this.collect();
      this.kick();
      this.scheduleInterval();
    }, this.o.intervalMs, true);
  }

  private collect(): void {
    try {
      const events = this.source.collect(this.clock.now());
      if (events.length) this.enqueue(events);
    } catch {
      // A bug in aggregation must not take the host down; the interval is lost.
    }
  }

  private enqueue(events: TelemetryEvent[]): void {
    for (const e of events) this.buffer.push(e);
    const over = this.buffer.length - this.o.maxBufferedEvents;
    if (over > 0) {
      this.buffer.splice(0, over);
      this.s.dropped += over;
      this.droppedUnreported += over;
    }
  }

  private kick(): void {
    if (this.closed || this.sending || this.clock.now() < this.retryAt) return;
    void this.sendAll();
  }

  private sendAll(): Promise<void> {
    if (this.sending) return this.sending;
    this.sending = (async () => {
      // Yield once so that `this.sending` is assigned before `finally` clears it: with an empty
      // queue the body would otherwise finish synchronously, leaving a settled promise in
      // `this.sending` that blocks every later send.
      await undefined;
      try {
        while (!this.closed && (this.current || this.buffer.length) && this.clock.now() >= this.retryAt) {
          if (!this.current) this.current = { id: newBatchId(), events: this.buffer.splice(0, this.o.maxBatchEvents) };
          if (!(await this.sendOne(this.current))) break;
        }
      } catch {
        // sendOne never throws; this is belt and braces for the host's sake.
      } finally {
        this.sending = undefined;
      }
    })();
    return this.sending;
  }

  /** Sends one batch; true when it left the queue (acknowledged or dropped), false to back off. */
  private async sendOne(batch: InFlight): Promise<boolean> {
    const body: TelemetryBatch = {
      batch_id: batch.id,
      source: { service: this.o.service, instance: this.o.instance, sdk: SDK_NAME },
      events: batch.events,
    };
    // Protocol v1's optional `dropped_events`: the collector keeps a running total per source.
    if (this.droppedUnreported > 0) body.dropped_events = this.droppedUnreported;
    const reportedDrops = this.droppedUnreported;
    let status: number | undefined;
    let retryAfter: string | undefined;
    try {
      const json = Buffer.from(JSON.stringify(body));
      const payload = this.o.gzip ? await gzipAsync(json) : json;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (this.o.gzip) headers['content-encoding'] = 'gzip';
      if (this.o.token) headers.authorization = `Bearer ${this.o.token}`;
      const res = await request(this.endpoint, {
        method: 'POST',
        headers,
        body: payload,
        headersTimeout: this.o.requestTimeoutMs,
        bodyTimeout: this.o.requestTimeoutMs,
        signal: AbortSignal.timeout(this.o.requestTimeoutMs),
        dispatcher: this.o.dispatcher,
      });
      status = res.statusCode;
      const ra = res.headers['retry-after'];
      retryAfter = Array.isArray(ra) ? ra[0] : ra;
      await res.body.text().catch(() => '');
    } catch (err) {
      return this.fail(undefined, (err as Error)?.message ?? String(err), undefined);
    }
    if (status >= 200 && status < 300) {
      this.s.sent += batch.events.length;
      this.s.batchesSent++;
      this.droppedUnreported = Math.max(0, this.droppedUnreported - reportedDrops);
      this.current = undefined;
      this.backoff = 0;
      return true;
    }
    if (status === 413 && batch.events.length > 1) {
      // Too large: split in two fresh batches at the head of the queue.
      const half = Math.ceil(batch.events.length / 2);
      this.buffer.unshift(...batch.events.slice(half));
      this.current = { id: newBatchId(), events: batch.events.slice(0, half) };
      return true;
    }
    if (status === 400 || status === 413 || status === 415) {
      // The collector refused this batch as it is; sending it again cannot help.
      this.s.dropped += batch.events.length;
      this.s.failures++;
      this.current = undefined;
      this.report({ status, message: `collector refused batch ${batch.id} (${status})`, dropped: true });
      return true;
    }
    return this.fail(status, `collector answered ${status}`, retryAfter);
  }

  private fail(status: number | undefined, message: string, retryAfter: string | undefined): boolean {
    this.s.failures++;
    this.s.lastError = message;
    const base = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** this.backoff++);
    let delay = base / 2 + (this.o.random() * base) / 2;
    const asked = parseRetryAfter(retryAfter, this.clock.now());
    if (asked !== undefined) delay = Math.max(delay, Math.min(asked, this.o.maxBackoffMs * 5));
    this.retryAt = this.clock.now() + delay;
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, delay, true);
    this.report({ status, message, dropped: false });
    return false;
  }

  private report(e: ReporterError): void {
    this.s.lastError = e.message;
    if (this.errors.size) this.errors.emit(e);
  }

  private async withTimeout(p: Promise<void>, ms: number): Promise<void> {
    let t: TimerHandle | undefined;
    await Promise.race([p, new Promise<void>((r) => (t = this.clock.setTimeout(r, Math.max(0, ms), true)))]);
    if (t !== undefined) this.clock.clearTimeout(t);
  }
}

/** A batch id unique across processes: time prefix for readability, 96 random bits. */
export function newBatchId(): string {
  return `${Date.now().toString(36)}-${randomBytes(12).toString('hex')}`;
}

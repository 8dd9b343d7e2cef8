/**
 * Pushes probe events to the collector (`POST /v1/telemetry`, protocol v1): batched,
 * gzip-compressed, one batch in flight, retried with exponential backoff (honouring
 * `Retry-After`) under the same `batch_id` so a retry is never stored twice. The
 * buffer is bounded: when the collector is down for long, the oldest events are
 * dropped (counted and logged) and probing goes on regardless.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { Agent, request } from 'undici';
import { retryAfterFromHeaders } from '../sdk/index.ts';
import type { ProbeEvent, TelemetryBatch } from '../sdk/protocol.ts';
import type { Logger } from './logger.ts';

const gzip = promisify(gzipCb);
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
  retries: number;
  dropped: number;
  rejected: number;
}

interface PendingBatch {
  id: string;
  events: ProbeEvent[];
}

type SendResult = { done: true } | { done: false; waitMs?: number };

/** Batches and sends probe events to the collector. */
export class PushClient {
  readonly stats: PushStats = { accepted: 0, batches: 0, retries: 0, dropped: 0, rejected: 0 };
  private readonly endpoint: URL;
  private readonly opts: Required<Omit<PushClientOptions, 'logger' | 'url'>>;
  private readonly log: Logger;
  private readonly agent: Agent;
  private buffer: ProbeEvent[] = [];
  private current: PendingBatch | undefined;
  private attempt = 0;
  private pumping: Promise<void> | undefined;
  private wantAll = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private deadline: number | undefined;
  private lastDropLog = 0;

  constructor(opts: PushClientOptions) {
    this.endpoint = new URL('/v1/telemetry', opts.url);
    this.log = opts.logger;
    this.opts = {
      token: opts.token,
      location: opts.location,
      batchSize: opts.batchSize ?? 500,
      flushIntervalMs: opts.flushIntervalMs ?? 5_000,
      bufferCap: Math.max(opts.bufferCap ?? 10_000, opts.batchSize ?? 500),
      gzip: opts.gzip ?? true,
      initialBackoffMs: opts.initialBackoffMs ?? 500,
      maxBackoffMs: opts.maxBackoffMs ?? 60_000,
      requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
      random: opts.random ?? Math.random,
    };
    this.agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: this.opts.requestTimeoutMs } });
  }

  /** Events waiting to be sent (buffered plus the batch in flight). */
  get pending(): number {
    return this.buffer.length + (this.current?.events.length ?? 0);
  }

  /** Starts the periodic flush. */
  start(): void {
    this.timer ??= setInterval(() => this.kick(true), this.opts.flushIntervalMs);
    this.timer.unref();
  }

  /** Queues one event; never blocks and never throws. */
  push(event: ProbeEvent): void {
    this.buffer.push(event);
    const room = this.opts.bufferCap - (this.current?.events.length ?? 0);
    if (this.buffer.length > room) {
      const excess = this.buffer.length - room;
      this.buffer.splice(0, excess);
      this.stats.dropped += excess;
      if (Date.now() - this.lastDropLog > 60_000) {
        this.lastDropLog = Date.now();
        this.log.warn('push buffer full: dropping the oldest probe events', { dropped_total: this.stats.dropped, buffer_cap: this.opts.bufferCap });
      }
    }
    if (this.buffer.length >= this.opts.batchSize) this.kick(false);
  }

  /** Sends everything buffered, retrying until `timeoutMs` has passed. Returns what is left unsent. */
  async flush(timeoutMs: number): Promise<number> {
    this.deadline = Date.now() + timeoutMs;
    try {
      this.kick(true);
      while (this.pumping) await this.pumping;
    } finally {
      this.deadline = undefined;
    }
    return this.pending;
  }

  /** Final flush, then releases the connection pool. Logs what could not be sent. */
  async close(timeoutMs: number): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const left = await this.flush(timeoutMs);
    if (left > 0) this.log.error('collector unreachable at shutdown: probe events lost', { lost: left });
    await this.agent.close().catch(() => undefined);
    return left;
  }

  private kick(all: boolean): void {
    this.wantAll ||= all;
    if (this.pumping) {
      if (all && this.deadline !== undefined) this.wake?.();
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  private async pump(): Promise<void> {
    for (;;) {
      if (!this.current) {
        const all = this.wantAll;
        if (this.buffer.length === 0 || (!all && this.buffer.length < this.opts.batchSize)) break;
        this.current = { id: `probe-${this.opts.location}-${randomUUID()}`.slice(0, 128), events: this.buffer.splice(0, this.opts.batchSize) };
      }
      const result = await this.send(this.current);
      if (result.done) {
        this.current = undefined;
        this.attempt = 0;
        continue;
      }
      this.stats.retries++;
      const backoff = Math.min(this.opts.maxBackoffMs, this.opts.initialBackoffMs * 2 ** this.attempt);
      this.attempt = Math.min(this.attempt + 1, 30);
      const wait = result.waitMs ?? Math.round(backoff * (0.5 + this.opts.random() * 0.5));
      if (this.deadline !== undefined && Date.now() + wait > this.deadline) break;
      await this.sleep(wait);
    }
    this.wantAll = false;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    }).finally(() => {
      this.wake = undefined;
    });
  }

  private async send(batch: PendingBatch): Promise<SendResult> {
    const body: TelemetryBatch = {
      batch_id: batch.id,
      source: { service: 'probe', instance: this.opts.location, sdk: PROBE_SDK_NAME },
      events: batch.events,
    };
    const json = Buffer.from(JSON.stringify(body));
    const payload = this.opts.gzip ? await gzip(json) : json;
    try {
      const res = await request(this.endpoint, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${this.opts.token}`,
          'user-agent': PROBE_SDK_NAME,
          ...(this.opts.gzip ? { 'content-encoding': 'gzip' } : {}),
        },
        body: payload,
        signal: AbortSignal.timeout(this.opts.requestTimeoutMs),
      });
      const text = await res.body.text();
      return this.handle(batch, res.statusCode, text, res.headers as Record<string, string | string[] | undefined>);
    } catch (err) {
      this.log.warn('collector push failed; will retry', { error: err instanceof Error ? err.message : String(err), pending: this.pending });
      return { done: false };
    }
  }

  private handle(batch: PendingBatch, status: number, text: string, headers: Record<string, string | string[] | undefined>): SendResult {
    if (status >= 200 && status < 300) {
      this.stats.batches++;
      this.stats.accepted += batch.events.length;
      return { done: true };
    }
    const detail = text.slice(0, 300);
    if (status === 413 && batch.events.length > 1) {
      // Too large for the collector: send the halves separately (fresh ids, none was stored).
      const half = Math.ceil(batch.events.length / 2);
      this.buffer.unshift(...batch.events.slice(half));
      batch.events = batch.events.slice(0, half);
      batch.id = `probe-${this.opts.location}-${randomUUID()}`.slice(0, 128);
      return { done: false, waitMs: 0 };
    }
    if (status === 400 || status === 413 || status === 415 || status === 422) {
      this.stats.rejected += batch.events.length;
      this.log.error('collector refused a batch: dropped (a bug in the prober or a protocol mismatch)', { status, detail, events: batch.events.length });
      return { done: true };
    }
    const retryAfter = retryAfterFromHeaders(headers);
    if (status === 401 || status === 403) {
      this.log.error('collector refused the ingest token; will keep retrying', { status, detail });
      return { done: false, waitMs: Math.max(retryAfter ?? 0, this.opts.maxBackoffMs) };
    }
    this.log.warn('collector answered with an error; will retry', { status, retry_after_ms: retryAfter ?? null, pending: this.pending });
    return retryAfter === undefined ? { done: false } : { done: false, waitMs: Math.min(retryAfter, 5 * 60_000) };
  }
}

/**
 * The one telemetry sender: the SDK's reporter and the prober both push protocol v1
 * batches through it. It batches, gzips, keeps a batch's id across retries (so the
 * collector stores a retried batch once), backs off with jitter and honours `Retry-After`,
 * holds at most `maxBufferedEvents` events (the batch in flight included; the oldest are
 * dropped first and reported as `dropped_events`), and never hurts its host: it never
 * throws, never blocks, reads only a few KiB of any reply, and neither its timers nor its
 * sockets keep a process alive.
 */
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import { parseRetryAfter } from './classify.ts';
import { createPostAgent, post, type PostAgent, type PostResult } from './http-post.ts';
import type { PassthroughCount, TelemetryBatch, TelemetryEvent } from './types.ts';
import type { PassthroughSource } from './passthrough-tally.ts';

const gzipAsync = promisify(gzip);

/** Settings of a sender; `url` and `source` are required. */
export interface SenderOptions {
  /** Collector base URL; batches go to `<url>/v1/telemetry`. */
  url: string;
  /** Ingest token (`Authorization: Bearer`); never logged. */
  token?: string | undefined;
  /** `source` of every batch. */
  source: TelemetryBatch['source'];
  /** Events held while the collector is unreachable, the batch in flight included (default 10 000). */
  maxBufferedEvents?: number;
  /** Events per batch (default and protocol maximum 5 000). */
  maxBatchEvents?: number;
  /** Prefix of every batch id (e.g. `probe-eu-west-`), for readable collector logs. */
  batchIdPrefix?: string;
  /** Compress bodies (default true). */
  gzip?: boolean;
  /** Deadline of one push, ms (default 5 000). */
  requestTimeoutMs?: number;
  /** Bytes of a reply read at most (default 16 KiB); the rest is never read. */
  maxReplyBytes?: number;
  /** First retry delay, ms (default 1 000); doubles up to `maxBackoffMs` (default 60 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  clock?: Clock;
  random?: () => number;
  /**
   * Running totals of fleet decisions the host applied and ignored (docs/fleet.md); each batch
   * carries what grew since the last acknowledged one as its `fleet` field.
   */
  fleetTotals?: () => { applied: number; ignored: number };
  /**
   * Requests forwarded unprotected (the SDK's tally): each new batch takes what it holds as
   * its `passthrough` field, and a batch is sent for them even with no events.
   */
  passthrough?: PassthroughSource;
  /** Every batch is traffic of this failure drill (`drill_id`, docs/drills.md): a sender per drill run. */
  drillId?: string;
}

/** Counters describing the sender's health. */
export interface SenderStats {
  /** Events acknowledged by the collector. */
  sent: number;
  /** Events dropped: buffer overflow plus refused batches. */
  dropped: number;
  /** Of `dropped`, events of batches the collector refused as invalid (400/413/415/422). */
  refused: number;
  /** Events waiting, the batch in flight included (never above `maxBufferedEvents`). */
  buffered: number;
  batchesSent: number;
  /** Failed push attempts (network, timeout, 401/403, 429, 5xx, refusals). */
  failures: number;
  lastError?: string;
}

/** A push failure, for the host's logs. */
export interface SenderError {
  status?: number;
  message: string;
  /** The batch was refused for good and its events dropped. */
  dropped: boolean;
  /** The token was refused (401/403): retrying, slowly, until someone fixes it. */
  auth: boolean;
  /** The wait the collector asked for (`Retry-After`), ms. */
  retryAfterMs?: number;
  /** Events waiting when it happened. */
  pending: number;
}

interface InFlight {
  id: string;
  events: TelemetryEvent[];
  /** Taken from the tally when the batch was made, so a retry under the same id carries the same counts. */
  passthrough?: PassthroughCount[];
}

type Resolved = Required<Omit<SenderOptions, 'token' | 'source' | 'fleetTotals' | 'drillId' | 'passthrough'>> & Pick<SenderOptions, 'token' | 'source' | 'fleetTotals' | 'drillId' | 'passthrough'>;

/** Pushes telemetry batches; see the module comment for its guarantees. */
export class TelemetrySender {
  private readonly o: Resolved;
  private readonly endpoint: URL;
  private readonly agent: PostAgent;
  private readonly listeners = new Set<(e: SenderError) => void>();
  private buffer: TelemetryEvent[] = [];
  private current: InFlight | undefined;
  private droppedUnreported = 0;
  /** Fleet totals the collector has acknowledged. */
  private readonly fleetAcked = { applied: 0, ignored: 0 };
  private readonly s: SenderStats = { sent: 0, dropped: 0, refused: 0, buffered: 0, batchesSent: 0, failures: 0 };
  private backoff = 0;
  private retryAt = 0;
  private retryTimer: TimerHandle | undefined;
  private sending: Promise<void> | undefined;
  private closed = false;

  constructor(options: SenderOptions) {
    this.o = {
      url: options.url,
      token: options.token,
      source: options.source,
      maxBufferedEvents: options.maxBufferedEvents ?? 10_000,
      maxBatchEvents: Math.min(5_000, options.maxBatchEvents ?? 5_000, options.maxBufferedEvents ?? 10_000),
      batchIdPrefix: options.batchIdPrefix ?? '',
      gzip: options.gzip ?? true,
      requestTimeoutMs: options.requestTimeoutMs ?? 5_000,
      maxReplyBytes: options.maxReplyBytes ?? 16_384,
      backoffMs: options.backoffMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      fleetTotals: options.fleetTotals,
      passthrough: options.passthrough,
      drillId: options.drillId,
    };
    this.endpoint = new URL('v1/telemetry', options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.agent = createPostAgent(this.endpoint);
  }

  /** Subscribes to push failures; returns the unsubscribe function. */
  onError(listener: (e: SenderError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Health counters. */
  stats(): SenderStats {
    return { ...this.s, buffered: this.pending };
  }

  /** Events waiting, the batch in flight included. */
  get pending(): number {
    return this.buffer.length + (this.current?.events.length ?? 0);
  }

  /** Whether anything is waiting: events, or passthrough counts (in flight or in the tally). */
  private get hasWork(): boolean {
    return this.pending > 0 || this.current?.passthrough !== undefined || (this.o.passthrough?.size ?? 0) > 0;
  }

  /** Queues events, dropping the oldest beyond the cap. Never throws, never sends by itself. */
  enqueue(events: readonly TelemetryEvent[]): void {
    if (this.closed) return;
    for (const e of events) this.buffer.push(e);
    const room = this.o.maxBufferedEvents - (this.current?.events.length ?? 0);
    const over = this.buffer.length - room;
    if (over > 0) {
      this.buffer.splice(0, over);
      this.s.dropped += over;
      this.droppedUnreported += over;
    }
  }

  /** Starts sending what is queued unless a backoff is running. */
  kick(): void {
    if (this.closed || this.sending || this.o.clock.now() < this.retryAt) return;
    void this.sendAll();
  }

  /**
   * Sends everything queued now, ignoring a running backoff, and waits at most `timeoutMs`
   * (default: one request timeout). Stops at the first failure unless `persist`, which
   * keeps retrying with backoff until the deadline (a shutting-down prober). Resolves with
   * the number of events left.
   */
  async flush(timeoutMs = this.o.requestTimeoutMs, persist = false): Promise<number> {
    const until = this.o.clock.now() + timeoutMs;
    this.retryAt = 0;
    while (this.hasWork && this.o.clock.now() < until) {
      const before = this.s.failures;
      await this.withTimeout(this.sendAll(), until - this.o.clock.now());
      if (this.s.failures === before) continue;
      const wait = this.retryAt - this.o.clock.now();
      if (!persist || this.o.clock.now() + wait >= until) break;
      await this.withTimeout(new Promise<void>(() => undefined), wait);
      this.retryAt = 0;
    }
    return this.pending;
  }

  /** Flushes (bounded by `timeoutMs`), then stops: later events are ignored, sockets closed. */
  async close(timeoutMs?: number): Promise<number> {
    if (this.closed) return this.pending;
    const left = await this.flush(timeoutMs);
    this.closed = true;
    if (this.retryTimer !== undefined) this.o.clock.clearTimeout(this.retryTimer);
    this.agent.destroy();
    return left;
  }

  private sendAll(): Promise<void> {
    if (this.sending) return this.sending;
    this.sending = (async () => {
      // Yield first so `this.sending` is set before `finally` clears it, even with nothing to do.
      await undefined;
      try {
        while (!this.closed && this.hasWork && this.o.clock.now() >= this.retryAt) {
          this.current ??= this.nextBatch();
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

  /** Sends one batch; true when it left the queue (acknowledged, split or refused), false to back off. */
  private async sendOne(batch: InFlight): Promise<boolean> {
    const body: TelemetryBatch = { batch_id: batch.id, source: this.o.source, events: batch.events };
    if (this.o.drillId !== undefined) body.drill_id = this.o.drillId;
    if (batch.passthrough) body.passthrough = batch.passthrough;
    const reportedDrops = this.droppedUnreported;
    if (reportedDrops > 0) body.dropped_events = reportedDrops;
    const totals = this.o.fleetTotals?.();
    const fleet = totals ? { applied: totals.applied - this.fleetAcked.applied, ignored: totals.ignored - this.fleetAcked.ignored } : undefined;
    if (fleet && (fleet.applied > 0 || fleet.ignored > 0)) body.fleet = fleet;
    let res: PostResult;
    try {
      const json = Buffer.from(JSON.stringify(body));
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': this.o.source.sdk ?? 'breakerbox' };
      if (this.o.gzip) headers['content-encoding'] = 'gzip';
      if (this.o.token) headers.authorization = `Bearer ${this.o.token}`;
      const payload = this.o.gzip ? await gzipAsync(json) : json;
      res = await post(this.endpoint, { headers, body: payload, timeoutMs: this.o.requestTimeoutMs, maxReplyBytes: this.o.maxReplyBytes, agent: this.agent });
    } catch (err) {
      return this.fail(undefined, `collector unreachable: ${(err as Error)?.message ?? String(err)}`, undefined, false);
    }
    const { status } = res;
    if (status >= 200 && status < 300) {
      this.s.sent += batch.events.length;
      this.s.batchesSent++;
      this.droppedUnreported = Math.max(0, this.droppedUnreported - reportedDrops);
      if (body.fleet) {
        this.fleetAcked.applied += body.fleet.applied;
        this.fleetAcked.ignored += body.fleet.ignored;
      }
      this.current = undefined;
      this.backoff = 0;
      return true;
    }
    if (status === 413 && batch.events.length > 1) {
      // Too large: two fresh batches at the head of the queue (nothing of it was stored).
      const half = Math.ceil(batch.events.length / 2);
      this.buffer.unshift(...batch.events.slice(half));
      this.current = { id: this.newId(), events: batch.events.slice(0, half), ...(batch.passthrough ? { passthrough: batch.passthrough } : {}) };
      return true;
    }
    const detail = res.text.slice(0, 300);
    if (status === 400 || status === 413 || status === 415 || status === 422) {
      // Refused as it is: sending it again cannot help (a bug or a protocol mismatch).
      this.s.dropped += batch.events.length;
      this.s.refused += batch.events.length;
      this.s.failures++;
      this.current = undefined;
      this.report({ status, message: `collector refused batch ${batch.id} (${status}): ${detail}`, dropped: true, auth: false, pending: this.pending });
      return true;
    }
    if (status === 401 || status === 403) {
      return this.fail(status, `collector refused the ingest token (${status}): ${detail}`, res.retryAfter, true);
    }
    return this.fail(status, `collector answered ${status}`, res.retryAfter, false);
  }

  private fail(status: number | undefined, message: string, retryAfter: string | undefined, auth: boolean): false {
    this.s.failures++;
    const base = auth ? this.o.maxBackoffMs : Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** this.backoff);
    this.backoff = Math.min(this.backoff + 1, 30);
    let delay = base / 2 + (this.o.random() * base) / 2;
    const asked = parseRetryAfter(retryAfter, this.o.clock.now());
    if (asked !== undefined) delay = Math.max(delay, Math.min(asked, this.o.maxBackoffMs * 5));
    this.retryAt = this.o.clock.now() + delay;
    if (this.retryTimer !== undefined) this.o.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.o.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, delay, true);
    this.report({ ...(status !== undefined ? { status } : {}), ...(asked !== undefined ? { retryAfterMs: asked } : {}), message, dropped: false, auth, pending: this.pending });
    return false;
  }

  private nextBatch(): InFlight {
    const batch: InFlight = { id: this.newId(), events: this.buffer.splice(0, this.o.maxBatchEvents) };
    const passthrough = this.o.passthrough && this.o.passthrough.size > 0 ? this.o.passthrough.take() : undefined;
    if (passthrough && passthrough.length > 0) batch.passthrough = passthrough;
    return batch;
  }

  private newId(): string {
    return `${this.o.batchIdPrefix}${newBatchId()}`.slice(0, 128);
  }

  private report(e: SenderError): void {
    this.s.lastError = e.message;
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A throwing listener is the host's bug; it must not stop the sender.
      }
    }
  }

  private async withTimeout(p: Promise<void>, ms: number): Promise<void> {
    let t: TimerHandle | undefined;
    await Promise.race([p, new Promise<void>((r) => (t = this.o.clock.setTimeout(r, Math.max(0, ms), true)))]);
    if (t !== undefined) this.o.clock.clearTimeout(t);
  }
}

/** A batch id unique across processes: a time prefix for readability, 96 random bits. */
export function newBatchId(): string {
  return `${Date.now().toString(36)}-${randomBytes(12).toString('hex')}`;
}

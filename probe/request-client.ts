/**
 * Learns of the probes the collector asks for (probe on suspicion): a long-poll of
 * `GET /v1/probe-requests?location=…` with the ingest token, one request at a time, each
 * bounded, backing off on errors. It runs beside the scheduler and never blocks it; its
 * sockets and timers are unref'd, so it never keeps the process alive on its own.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import { Agent, buildConnector, request } from 'undici';
import type { Logger } from './logger.ts';

/** One probe the collector asked for. */
export interface ProbeRequest {
  id: number;
  key: BreakerKey;
  requested_at: number;
  suspicion_id: number;
}

/** Options of `ProbeRequestClient`. */
export interface ProbeRequestClientOptions {
  /** Collector base URL. */
  url: string;
  token: string;
  location: string;
  logger: Logger;
  /** Receives each batch of requests; must not throw (it is guarded anyway). */
  onRequests: (requests: ProbeRequest[]) => void;
  /** How long the collector may hold one poll (the collector caps it too). */
  waitS?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
}

/** Counters of the client. */
export interface ProbeRequestStats {
  polls: number;
  received: number;
  failures: number;
}

/** Long-polls the collector for on-demand probe requests. */
export class ProbeRequestClient {
  readonly stats: ProbeRequestStats = { polls: 0, received: 0, failures: 0 };
  private readonly opts: Required<Omit<ProbeRequestClientOptions, 'random'>> & { random: () => number };
  private readonly agent: Agent;
  private readonly endpoint: URL;
  private running = false;
  private loop: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private wakeSleep: (() => void) | undefined;
  private backoffMs: number;

  constructor(opts: ProbeRequestClientOptions) {
    this.opts = { waitS: 25, initialBackoffMs: 1_000, maxBackoffMs: 60_000, random: Math.random, ...opts };
    this.backoffMs = this.opts.initialBackoffMs;
    this.endpoint = new URL('/v1/probe-requests', this.opts.url);
    this.endpoint.searchParams.set('location', this.opts.location);
    this.endpoint.searchParams.set('wait_s', String(this.opts.waitS));
    const connect = buildConnector({ timeout: 10_000 });
    this.agent = new Agent({
      connections: 1,
      keepAliveTimeout: 30_000,
      connect: (options, callback) =>
        connect(options, (err, socket) => {
          // An unanswered poll must never keep the prober alive on its own.
          socket?.unref();
          if (err) callback(err, null);
          else callback(null, socket!);
        }),
    });
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops polling and releases the connection. */
  async stop(): Promise<void> {
    this.running = false;
    this.abort?.abort();
    if (this.sleepTimer) clearTimeout(this.sleepTimer);
    this.wakeSleep?.();
    await this.loop;
    await this.agent.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const waitMs = await this.pollOnce();
      if (this.running && waitMs > 0) await this.sleep(waitMs);
    }
  }

  /** One poll; returns how long to wait before the next. */
  private async pollOnce(): Promise<number> {
    this.stats.polls++;
    this.abort = new AbortController();
    const deadline = setTimeout(() => this.abort?.abort(), (this.opts.waitS + 15) * 1000);
    deadline.unref();
    try {
      const res = await request(this.endpoint, {
        method: 'GET',
        headers: { authorization: `Bearer ${this.opts.token}`, accept: 'application/json' },
        dispatcher: this.agent,
        signal: this.abort.signal,
        headersTimeout: (this.opts.waitS + 10) * 1000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) return this.failed(res.statusCode === 404 ? 'the collector has no /v1/probe-requests (older version?)' : `status ${res.statusCode}`, res.statusCode);
      const body = JSON.parse(text) as { requests?: ProbeRequest[]; retry_after_ms?: number };
      this.backoffMs = this.opts.initialBackoffMs;
      const requests = Array.isArray(body.requests) ? body.requests : [];
      if (requests.length > 0) {
        this.stats.received += requests.length;
        try {
          this.opts.onRequests(requests);
        } catch (err) {
          this.opts.logger.error('handling probe requests failed', { error: err instanceof Error ? err.message : String(err) });
        }
      }
      return Math.max(0, Number(body.retry_after_ms) || 0);
    } catch (err) {
      if (!this.running) return 0;
      return this.failed(err instanceof Error ? err.message : String(err));
    } finally {
      clearTimeout(deadline);
    }
  }

  private failed(reason: string, status?: number): number {
    this.stats.failures++;
    const wait = Math.round(this.backoffMs * (0.5 + this.opts.random() / 2));
    const fields = { status: status ?? null, error: reason, retry_in_ms: wait };
    if (status === 401 || status === 403) this.opts.logger.error('collector refused the ingest token for probe requests', fields);
    else this.opts.logger.warn('polling the collector for probe requests failed; backing off', fields);
    this.backoffMs = Math.min(this.opts.maxBackoffMs, this.backoffMs * 2);
    return wait;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeSleep = () => {
        this.wakeSleep = undefined;
        resolve();
      };
      this.sleepTimer = setTimeout(() => this.wakeSleep?.(), ms);
      this.sleepTimer.unref();
    });
  }
}

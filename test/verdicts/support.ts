import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../server/app.ts';
import type { ServerClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import type { Config } from '../../server/config/schema.ts';
import type { BreakerKey, ErrorClass, ProbeEvent, TelemetryEvent, TransitionEvent, WindowEvent } from '@breakerbox/protocol';
import { keyId } from '@breakerbox/protocol';

/** A test collector on a temp file, with an admin token, no alert or suspicion timer (tests run them), and a fixed "now". */
export interface TestCollector {
  app: FastifyInstance;
  token: string;
  now: number;
  /** The directory holding its SQLite file and config. */
  dir: string;
  send(source: { service: string; instance: string }, events: TelemetryEvent[]): Promise<void>;
  get<T = any>(url: string): Promise<T>;
  close(): Promise<void>;
}

let seq = 0;

/**
 * Builds the real app on a temp SQLite file (with `clock`, on that clock; `logger` as the app takes it, default none). `now` is a minute
 * boundary just behind the clock, so every event placed before it is accepted by ingest.
 */
export async function collector(options: { config?: Record<string, unknown>; env?: Record<string, string>; clock?: ServerClock; tokenName?: string; logger?: AppOptions['logger']; dir?: string } = {}): Promise<TestCollector> {
  // `dir`: the directory of an earlier collector's file — a restart on the same SQLite file (close() then leaves it for the caller).
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'bbx-verdicts-'));
  // Settings go through a real config file, so defaults and validation apply as in production.
  writeFileSync(join(dir, 'config.json'), JSON.stringify(options.config ?? {}));
  const config: Config = loadConfig({
    env: { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_CONFIG: join(dir, 'config.json'), BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_SUSPICION_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent', ...options.env },
  });
  const app = await buildApp({ config, logger: options.logger ?? false, ...(options.clock ? { clock: options.clock } : {}) });
  await app.ready();
  const token = (await app.storage.tokens.create(options.tokenName ?? 't', ['admin'])).secret;
  const clockNow = app.clock.now();
  const now = clockNow - (clockNow % 60_000);
  return {
    app,
    token,
    now,
    dir,
    async send(source, events) {
      for (let i = 0; i < events.length; i += 2000) {
        const res = await app.inject({
          method: 'POST',
          url: '/v1/telemetry',
          headers: { authorization: `Bearer ${token}` },
          payload: { batch_id: `b-${process.pid}-${seq++}`, source: { ...source, sdk: 'test/0' }, events: events.slice(i, i + 2000) },
        });
        if (res.statusCode !== 200) throw new Error(`ingest refused: ${res.statusCode} ${res.body}`);
      }
    },
    async get(url) {
      const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    },
    async close() {
      await app.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Per-window traffic: calls split into ok / slow / errors; the rest of a window's fields. */
export interface Traffic {
  calls: number;
  slow?: number;
  errors?: Partial<Record<ErrorClass, number>>;
  rejected?: number;
  retries?: number;
  short_circuited?: number;
  half_open?: { ok: number; failed: number };
  latencyMs?: number;
  cost_usd?: number;
}

/** Ten-second windows for `key` from `from` to `to`, every `everyMs`. */
export function windows(key: BreakerKey, from: number, to: number, traffic: Traffic, everyMs = 10_000): WindowEvent[] {
  const out: WindowEvent[] = [];
  const failed = Object.values(traffic.errors ?? {}).reduce((a, b) => a + (b ?? 0), 0);
  const slow = traffic.slow ?? 0;
  const bounds = [100, 500, 1000, 5000];
  const latency = traffic.latencyMs ?? 300;
  const bucket = bounds.findIndex((b) => latency <= b);
  const counts = [0, 0, 0, 0, 0];
  counts[bucket === -1 ? 4 : bucket] = traffic.calls;
  for (let start = from; start + 10_000 <= to; start += everyMs) {
    out.push({
      type: 'window', start, end: start + 10_000, key,
      calls: traffic.calls, ok: traffic.calls - failed - slow, slow, errors: traffic.errors ?? {},
      rejected: traffic.rejected ?? 0, short_circuited: traffic.short_circuited ?? 0, retries: traffic.retries ?? 0, cold_excluded: 0,
      half_open: traffic.half_open ?? { ok: 0, failed: 0 },
      latency_ms: { bounds, counts: [...counts] },
      input_tokens: traffic.calls * 100, output_tokens: traffic.calls * 20, cost_usd: traffic.cost_usd ?? traffic.calls * 0.001,
    });
  }
  return out;
}

/** One probe a minute for `key` from `location` over `[from, to)`. */
export function probes(key: BreakerKey, location: string, from: number, to: number, outcome: ProbeEvent['outcome'], extra: Partial<ProbeEvent> = {}): ProbeEvent[] {
  const out: ProbeEvent[] = [];
  for (let ts = from + 5_000; ts < to; ts += 60_000) {
    out.push({ type: 'probe', ts, key, location, outcome, latency_ms: { connect: 20, ttfb: 200, total: outcome === 'slow' ? 9000 : 350 }, ...extra });
  }
  return out;
}

/** A breaker transition. */
export function transition(key: BreakerKey, ts: number, from: TransitionEvent['from'], to: TransitionEvent['to'], reason: TransitionEvent['reason'] = 'error_rate'): TransitionEvent {
  return { type: 'transition', ts, key, from, to, reason };
}

/** The query string of a key (region omitted when absent). */
export function keyQuery(key: BreakerKey): string {
  const p = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model });
  if (key.region) p.set('region', key.region);
  return p.toString();
}

export const MIN = 60_000;

/** A small deterministic generator (mulberry32): a failing seed replays. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether two keys (as the read API returns them, or as a case declares them) are the same key. */
export const sameKey = (a: BreakerKey, b: BreakerKey): boolean => keyId(a) === keyId(b);

/** The verdict of `key` in an `/api/verdicts` answer; throws naming the key when it has none. */
export function verdictFor(verdicts: any[], key: BreakerKey): any {
  const e = verdicts.find((x) => sameKey(x.key, key));
  if (!e) throw new Error(`no verdict for ${key.provider}/${key.model}`);
  return e;
}

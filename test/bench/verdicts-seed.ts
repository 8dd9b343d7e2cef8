/**
 * The day the verdicts benchmark reads (and the engines check compares at a small size): keys
 * x instances reporting 10-second windows, probes from 2 locations every minute, flapping,
 * outage and auth-failing keys among healthy ones.
 *
 * The last `recentHours` go through the real store (`insertBatch`: raw rows, rollups,
 * triggers); the hours before are written straight into the per-minute rollup tables with
 * the sums those windows would have produced (6 windows per minute), plus the raw probes and
 * transitions, through a `SeedSink` (the same rows on either engine). Raw windows older than
 * `recentHours` are not written: no read path reads raw windows further back than 1 h.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_LATENCY_BOUNDS_MS, type BreakerKey, type TelemetryEvent } from '@breakerbox/protocol';
import type { SeedSink } from './seed-sink.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** How big the seeded day is. */
export interface DayShape {
  keys: number;
  instances: number;
  services: number;
  hours: number;
  /** Hours (the most recent) that go through the store instead of the direct writes; a fraction is fine (0.25: the last 15 minutes). */
  recentHours: number;
  locations: string[];
  operations: number;
}

/** The benchmark's day: 24 h for 200 keys x 5 instances, the last 2 h through the store. */
export const BENCH_DAY: DayShape = { keys: 200, instances: 5, services: 4, hours: 24, recentHours: 2, locations: ['eu-west', 'us-east'], operations: 20 };

/** The breaker keys of a day, with the ids real catalogues use (`/`, `:`, `@`). */
export const dayKeys = (n: number): BreakerKey[] =>
  Array.from({ length: n }, (_, i) => ({
    provider: ['openai', 'anthropic', 'together', 'mistral'][i % 4]!,
    endpoint: 'chat',
    model: `org/model-${i}:v${i % 3}@2025`,
    ...(i % 2 ? { region: ['us-east', 'eu-west'][i % 4 >> 1]! } : {}),
  }));

/** Keys 0-9 flap on two instances, 10-19 are in an outage, 20-29 fail with auth: a realistic mix of verdicts. */
const kind = (k: number) => (k < 10 ? 'flapping' : k < 20 ? 'outage' : k < 30 ? 'auth' : 'healthy');
const probeOk = (k: number) => kind(k) !== 'outage';

function window(key: BreakerKey, k: number, t: number): TelemetryEvent {
  const kd = kind(k);
  const errors = kd === 'outage' ? { server: 8 } : kd === 'auth' ? { auth: 6 } : { server: 1 };
  const failed = Object.values(errors).reduce((a, b) => a + b, 0);
  const counts = new Array<number>(DEFAULT_LATENCY_BOUNDS_MS.length + 1).fill(0);
  counts[3] = 12;
  counts[4] = 6;
  counts[6] = 2;
  return {
    type: 'window', start: t, end: t + 10_000, key, calls: 20, ok: 20 - failed - 1, slow: 1, errors,
    rejected: 0, short_circuited: 0, retries: 1, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: [...DEFAULT_LATENCY_BOUNDS_MS], counts }, input_tokens: 2000, output_tokens: 400, cost_usd: 0.02,
  };
}

/** Each directly written table's columns. */
const TABLES = {
  key_minutes: ['minute', 'key_id', 'service_id', 'calls', 'ok', 'slow', 'e_server', 'e_auth', 'retries', 'input_tokens', 'output_tokens',
    'cost_usd', 'windows', 'transitions', 'opens', 'h3', 'h4', 'h6'],
  key_minute_sources: ['minute', 'key_id', 'source_id'],
  probe_minutes: ['minute', 'key_id', 'location', 'probes', 'ok', 'error', 'total_ms_sum', 'h4', 'h7'],
  probe_events: ['key_id', 'source_id', 'location', 'ts', 'outcome', 'error_class', 'status', 'connect_ms', 'ttfb_ms', 'total_ms', 'cold'],
  transition_events: ['key_id', 'source_id', 'ts', 'from_state', 'to_state', 'reason'],
  task_minutes: ['minute', 'operation', 'service_id', 'completed', 'failed', 'attempts', 'cost_usd', 'level0', 'level1', 'fallback_invoked', 'fallback_failed'],
};
type Table = keyof typeof TABLES;

/** What seeding took: milliseconds of the direct writes and of the store, events through the store. */
export interface SeedTimes {
  directMs: number;
  storeMs: number;
  events: number;
}

/**
 * Seeds the day ending at `now` (a minute) into `app`'s storage, `sink` writing the older
 * hours (one transaction per hour); `progress` gets a line every few hours.
 */
export async function seedDay(app: FastifyInstance, sink: SeedSink, shape: DayShape, now: number, progress: (line: string) => void = () => undefined): Promise<SeedTimes> {
  const { instances: INSTANCES, services: SERVICES, locations: LOCATIONS } = shape;
  const keys = dayKeys(shape.keys);
  const serviceOf = (k: number) => `svc-${k % SERVICES}`;
  const start = now - shape.hours * HOUR;
  const recentStart = now - shape.recentHours * HOUR;
  const t0 = performance.now();
  const ids = { key: new Map<number, number>(), service: new Map<string, number>(), source: new Map<string, number>() };
  const SOURCE = ['service_id', 'instance', 'sdk', 'first_seen', 'last_seen'];
  for (const [k, key] of keys.entries()) {
    ids.key.set(k, await sink.insertId('keys', ['provider', 'endpoint', 'model', 'region', 'first_seen', 'last_seen'], [key.provider, key.endpoint, key.model, key.region ?? '', start, now]));
  }
  for (let s = 0; s < SERVICES; s++) {
    const sid = await sink.insertId('services', ['name'], [`svc-${s}`]);
    ids.service.set(`svc-${s}`, sid);
    for (let i = 0; i < INSTANCES; i++) ids.source.set(`svc-${s}/pod-${i}`, await sink.insertId('sources', SOURCE, [sid, `pod-${i}`, 'bench', start, now]));
  }
  for (const loc of LOCATIONS) {
    const sid = await sink.insertId('services', ['name'], [`prober-${loc}`]);
    ids.source.set(`prober/${loc}`, await sink.insertId('sources', SOURCE, [sid, loc, 'bench', start, now]));
  }

  // The rows of one hour, gathered before they are written in one transaction.
  const pending = new Map<Table, unknown[][]>();
  const add = (t: Table, row: unknown[]) => void (pending.get(t) ?? pending.set(t, []).get(t)!).push(row);
  const flush = async () => {
    for (const [t, rows] of pending) await sink.insertRows(t, TABLES[t], rows);
    pending.clear();
  };
  const windows = INSTANCES * 6; // windows of one key per minute, over its instances
  /** The older hours, straight into the tables: one transaction per hour and table. */
  const writeOlderHours = async () => {
    for (let m = start; m < recentStart; m += HOUR) {
      for (let minute = m; minute < Math.min(m + HOUR, recentStart); minute += MIN) {
        for (let k = 0; k < shape.keys; k++) {
          const keyId = ids.key.get(k)!;
          const kd = kind(k);
          const server = kd === 'outage' ? 8 : kd === 'auth' ? 0 : 1;
          const auth = kd === 'auth' ? 6 : 0;
          const cycle = kd === 'flapping' && minute % (10 * MIN) === 0;
          add('key_minutes', [minute, keyId, ids.service.get(serviceOf(k)), 20 * windows, (19 - server - auth) * windows, windows, server * windows, auth * windows,
            windows, 2000 * windows, 400 * windows, 0.02 * windows, windows, cycle ? 4 : 0, cycle ? 2 : 0, 12 * windows, 6 * windows, 2 * windows]);
          for (let i = 0; i < INSTANCES; i++) add('key_minute_sources', [minute, keyId, ids.source.get(`${serviceOf(k)}/pod-${i}`)]);
          if (cycle) {
            for (let i = 0; i < 2; i++) {
              const src = ids.source.get(`${serviceOf(k)}/pod-${i}`);
              add('transition_events', [keyId, src, minute, 'closed', 'open', 'error_rate']);
              add('transition_events', [keyId, src, minute + 30_000, 'open', 'closed', 'probes_succeeded']);
            }
          }
          const ok = probeOk(k);
          for (const loc of LOCATIONS) {
            add('probe_minutes', [minute, keyId, loc, 1, ok ? 1 : 0, ok ? 0 : 1, ok ? 400 : 3000, ok ? 1 : 0, ok ? 0 : 1]);
            add('probe_events', [keyId, ids.source.get(`prober/${loc}`), loc, minute + 5_000, ok ? 'ok' : 'error', ok ? null : 'server', ok ? 200 : 503, 20, 300, ok ? 400 : 3000, 0]);
          }
        }
        for (let op = 0; op < shape.operations; op++) add('task_minutes', [minute, `op-${op}`, ids.service.get(`svc-${op % SERVICES}`), 30, 1, 33, 0.6, 29, 1, 2, 0]);
      }
      await flush();
      const done = (m + HOUR - start) / HOUR;
      if (done % 4 === 0) progress(`  direct rollups: ${done} of ${shape.hours - shape.recentHours} h written (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
    // Breakers were created before the day started.
    for (let k = 0; k < shape.keys; k++) for (let i = 0; i < INSTANCES; i++) add('transition_events', [ids.key.get(k), ids.source.get(`${serviceOf(k)}/pod-${i}`), start - MIN, null, 'closed', 'created']);
    await flush();
  };
  await sink.withoutIndexes(Object.keys(TABLES), writeOlderHours);
  const tDirect = performance.now();

  // The last hours through the real store, one batch per instance per 5 minutes.
  let events = 0;
  for (let t = recentStart; t < now; t += 5 * MIN) {
    for (let s = 0; s < SERVICES; s++) {
      for (let i = 0; i < INSTANCES; i++) {
        const batch: TelemetryEvent[] = [];
        for (let k = s; k < shape.keys; k += SERVICES) {
          for (let w = t; w < t + 5 * MIN && w < now; w += 10_000) batch.push(window(keys[k]!, k, w));
          if (kind(k) === 'flapping' && i < 2) {
            for (let c = t; c < t + 5 * MIN; c += 10 * MIN) {
              batch.push({ type: 'transition', ts: c, key: keys[k]!, from: 'closed', to: 'open', reason: 'error_rate' });
              batch.push({ type: 'transition', ts: c + 30_000, key: keys[k]!, from: 'open', to: 'closed', reason: 'probes_succeeded' });
            }
          }
        }
        if (i === 0) {
          for (let op = s; op < shape.operations; op += SERVICES) {
            for (let m = t; m < t + 5 * MIN; m += MIN) {
              batch.push({ type: 'tasks', start: m, end: m + 10_000, operation: `op-${op}`, completed: 30, failed: 1, degraded: 0, attempts: 33, cost_usd: 0.6, levels: { '0': 29, '1': 1 }, fallback: { invoked: 2, failed: 0 } });
            }
          }
        }
        events += batch.length;
        await app.storage.telemetry.insertBatch({ batch_id: `seed-${t}-${s}-${i}`, source: { service: `svc-${s}`, instance: `pod-${i}`, sdk: 'bench' }, events: batch }, now);
      }
    }
    for (const loc of LOCATIONS) {
      const probes: TelemetryEvent[] = [];
      for (let k = 0; k < shape.keys; k++) {
        for (let m = t; m < t + 5 * MIN; m += MIN) {
          const ok = probeOk(k);
          probes.push({ type: 'probe', ts: m + 5_000, key: keys[k]!, location: loc, outcome: ok ? 'ok' : 'error', ...(ok ? {} : { error_class: 'server' as const, status: 503 }), latency_ms: { connect: 20, ttfb: 300, total: ok ? 400 : 3000 } });
        }
      }
      events += probes.length;
      await app.storage.telemetry.insertBatch({ batch_id: `probe-${t}-${loc}`, source: { service: `prober-${loc}`, instance: loc, sdk: 'bench' }, events: probes }, now);
    }
    const done = (t + 5 * MIN - recentStart) / MIN;
    if (done % 30 === 0) progress(`  through the store: ${done} of ${shape.recentHours * 60} min, ${events.toLocaleString('en-US')} events (${((performance.now() - tDirect) / 1000).toFixed(1)} s)`);
  }
  return { directMs: tDirect - t0, storeMs: performance.now() - tDirect, events };
}

/**
 * Traffic of `[from, to)` through the store, as a running fleet sends it between two alert
 * passes: every `every`-th key's instances send their 10-second windows (1: every key), and
 * with `probes` each location probes every key at the minutes inside the span.
 */
export async function liveTraffic(app: FastifyInstance, shape: DayShape, from: number, to: number, every: number, probes: boolean): Promise<void> {
  const keys = dayKeys(shape.keys);
  for (let s = 0; s < shape.services; s++) {
    for (let i = 0; i < shape.instances; i++) {
      const batch: TelemetryEvent[] = [];
      for (let k = s; k < shape.keys; k += shape.services) {
        if (k % every !== 0) continue;
        for (let w = from - (from % 10_000); w + 10_000 <= to; w += 10_000) batch.push(window(keys[k]!, k, w));
      }
      if (batch.length) await app.storage.telemetry.insertBatch({ batch_id: `live-${from}-${s}-${i}`, source: { service: `svc-${s}`, instance: `pod-${i}`, sdk: 'bench' }, events: batch }, to);
    }
  }
  const minute = Math.ceil(from / MIN) * MIN;
  if (!probes || minute >= to) return;
  for (const loc of shape.locations) {
    const events: TelemetryEvent[] = keys.map((key, k) => {
      const ok = probeOk(k);
      return { type: 'probe', ts: minute + 5_000, key, location: loc, outcome: ok ? 'ok' : 'error', ...(ok ? {} : { error_class: 'server' as const, status: 503 }), latency_ms: { connect: 20, ttfb: 300, total: ok ? 400 : 3000 } };
    });
    await app.storage.telemetry.insertBatch({ batch_id: `live-probe-${minute}-${loc}`, source: { service: `prober-${loc}`, instance: loc, sdk: 'bench' }, events }, to);
  }
}

/**
 * Full recompute beside the incremental analysis, on one seeded database, at an alert
 * pass's cadence: before each measured round the (manual) clock moves 15 s and the fleet's
 * traffic of those 15 s is stored, then every read is timed on a collector with
 * `verdicts.incremental` off (its fleet views in the read worker, as before) and on one with
 * it on. Two fleets: `live` (every key reports every 10 s, probes every minute: the
 * incremental rule judges almost every key again) and `quiet` (one key in 100 reports, no
 * probes). On PostgreSQL the full collector stores the traffic (two collectors on one
 * database: the incremental one reads it from the change log). Part of `verdicts-bench.ts`.
 */
import type { FastifyInstance } from 'fastify';
import type { ManualServerClock } from '../../server/clock.ts';
import { createVerdictEngine, KEPT_MINUTES } from '../../server/verdicts/verdict-engine.ts';
import { createMinuteWindow } from '../../server/verdicts/minute-window.ts';
import { floorMinute } from '../../server/verdicts/window.ts';
import { liveTraffic, type DayShape } from './verdicts-seed.ts';

/** The reads compared, in table order. */
export const PASS_LABELS = ['verdicts 15m', 'keys 15m', 'verdicts 24h', 'keys 24h', 'alert pass'] as const;

/** p95 per read (ms), and CPU per alert pass (ms). */
export interface Column {
  p95: number[];
  cpuPerPassMs: number;
}

const pctl = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;

/** Times each read on both collectors over `rounds` rounds of one fleet's traffic; returns [full, incremental]. */
export async function comparePasses(
  apps: { full: FastifyInstance; incremental: FastifyInstance },
  token: string,
  clock: ManualServerClock,
  shape: DayShape,
  fleet: 'live' | 'quiet',
  rounds: number,
): Promise<[Column, Column]> {
  const get = (app: FastifyInstance, url: string) => async () => {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  };
  const reads = (app: FastifyInstance) => [
    get(app, '/api/verdicts?window=15m'),
    get(app, '/api/keys?window=15m'),
    get(app, '/api/verdicts?window=24h'),
    get(app, '/api/keys?window=24h'),
    async () => void (await app.alerts.evaluate(clock.now())),
  ];
  const both = [reads(apps.full), reads(apps.incremental)];
  const times = both.map(() => PASS_LABELS.map(() => [] as number[]));
  const cpu = [0, 0];
  for (let r = -1; r < rounds; r++) {
    const from = clock.now();
    clock.advance(15_000);
    // On PostgreSQL the other collector takes the traffic: the incremental one hears of it only through the change log.
    const writer = apps.full.storage.engine === 'postgres' ? apps.full : apps.incremental;
    await liveTraffic(writer, shape, from, clock.now(), fleet === 'live' ? 1 : 100, fleet === 'live');
    for (const [c, list] of both.entries()) {
      for (const [i, read] of list.entries()) {
        const c0 = process.cpuUsage();
        const a = performance.now();
        await read();
        // Round -1 warms statements and the kept analyses up; it is not counted.
        if (r < 0) continue;
        times[c]![i]!.push(performance.now() - a);
        if (i === PASS_LABELS.length - 1) {
          const used = process.cpuUsage(c0);
          cpu[c]! += (used.user + used.system) / 1000;
        }
      }
    }
  }
  return [0, 1].map((c) => ({ p95: times[c]!.map((t) => pctl(t, 0.95)), cpuPerPassMs: cpu[c]! / rounds })) as [Column, Column];
}

/**
 * Heap held by the kept analyses of a fresh incremental engine after one pass of each window
 * the collector keeps (15 m verdicts, 15 m all keys, 24 h of each), in bytes; needs --expose-gc.
 */
export async function keptBytes(app: FastifyInstance, now: number): Promise<number | null> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  const before = process.memoryUsage().heapUsed;
  const engine = createVerdictEngine(app.storage, app.config.verdicts, undefined, undefined, app.storageChanges);
  for (const span of [15 * 60_000, 24 * 3_600_000]) {
    await engine.analyse({ from: now - span, to: now });
    await engine.analyse({ from: now - span, to: now }, { all: true });
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keep the engine (and what it keeps) alive until measured.
  return engine.cacheStats() ? after - before : null;
}

/** Heap held by the rollup minutes an incremental engine keeps (15 m read once), in bytes, and their rows; needs --expose-gc. */
export async function keptMinuteBytes(app: FastifyInstance, now: number): Promise<{ bytes: number; minutes: number; rows: number } | null> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || app.storage.engine !== 'sqlite') return null;
  gc();
  const before = process.memoryUsage().heapUsed;
  const window = createMinuteWindow(app.storage.rollups, app.storageChanges, KEPT_MINUTES * 60_000);
  await window.read(floorMinute(now - 15 * 60_000), now);
  gc();
  return { bytes: process.memoryUsage().heapUsed - before, ...window.size() };
}

/**
 * Where one full verdict pass spends its time on SQLite (not a benchmark:
 * `BENCH_DB=<kept verdicts bench database> node bin/run-ts.js test/bench/verdicts-profile.ts [--kept-minutes] [minutes ...]`;
 * keep a database with `BENCH_KEEP_DB=1 npm run bench -- verdicts ...`). Times every storage
 * read a full `analyse` of the fleet makes (each call of the rollups, events, telemetry and
 * samples parts) over a window of `minutes` (default 15), several passes, and prints the
 * pass time, the share spent inside storage reads (SQL, row folding) by method, and the
 * rest (judging, evidence text, probe figures). Run it under `node --cpu-prof` for the
 * function-level split.
 */
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { createVerdictEngine, KEPT_MINUTES } from '../../server/verdicts/verdict-engine.ts';
import { analyse } from '../../server/verdicts/analyse.ts';
import { createMinuteWindow } from '../../server/verdicts/minute-window.ts';
import { createOpenShareReader } from '../../server/verdicts/open-share.ts';
import type { TimeRange } from '../../server/verdicts/window.ts';
import { loadLine } from './bench-engines.ts';

const RUNS = 4;
const path = process.env.BENCH_DB;
if (!path) throw new Error('BENCH_DB=<path of a kept verdicts bench database> is required');
const db = openDatabase(path, { readonly: true });
const end = (db.prepare('SELECT MAX(minute) FROM key_minutes').pluck().get() as number) + 60_000;
const keyCount = db.prepare('SELECT COUNT(*) FROM keys').pluck().get() as number;
db.close();

const config = loadConfig({ env: { BREAKERBOX_DB: path, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
const app = await buildApp({ config: { ...config, verdicts: { ...config.verdicts, incremental: false } }, logger: false, clock: manualClock(end) });
await app.ready();

const spent = new Map<string, { n: number; ms: number }>();
let timing = false;
// Each read part's methods, timed while `timing` is set (SQLite's reads are synchronous, so the time is the read's own).
const timed = <T extends object>(part: string, o: T): T => {
  const out: Record<string, unknown> = { ...(o as Record<string, unknown>) };
  for (const [name, fn] of Object.entries(o as Record<string, unknown>)) {
    if (typeof fn !== 'function') continue;
    out[name] = async (...args: unknown[]) => {
      const a = performance.now();
      try {
        return await (fn as (...x: unknown[]) => unknown).apply(o, args);
      } finally {
        if (timing) {
          const e = spent.get(`${part}.${name}`) ?? { n: 0, ms: 0 };
          e.n++;
          e.ms += performance.now() - a;
          spent.set(`${part}.${name}`, e);
        }
      }
    };
  }
  return out as T;
};
const s = app.storage;
const storage = { telemetry: timed('telemetry', s.telemetry), rollups: timed('rollups', s.rollups), events: timed('events', s.events), samples: timed('samples', s.samples) };
// --kept-minutes: the incremental engine's minute window (server/verdicts/minute-window.ts) answers the per-minute reads, every pass still full.
const keptMinutes = process.argv.includes('--kept-minutes');
const deps = {
  storage, openShare: createOpenShareReader(storage.events, { idleAfterMs: app.config.verdicts.open_idle_after_s * 1000 }), thresholds: app.config.verdicts,
  minutes: createMinuteWindow(storage.rollups, app.storageChanges, KEPT_MINUTES * 60_000),
};
const engine = keptMinutes ? { analyse: (range: TimeRange) => analyse(deps, range) } : createVerdictEngine(storage, app.config.verdicts);

console.log(`${keyCount} keys, traffic up to ${new Date(end).toISOString()}, load average ${loadLine()}`);
const spans = process.argv.slice(2).filter((a) => /^\d+$/.test(a));
for (const minutes of (spans.length > 0 ? spans : ['15']).map(Number)) {
  const range = { from: end - minutes * 60_000, to: end };
  await engine.analyse(range);
  spent.clear();
  timing = true;
  const a = performance.now();
  for (let i = 0; i < RUNS; i++) await engine.analyse(range);
  const passMs = (performance.now() - a) / RUNS;
  timing = false;
  // Nested calls (a read inside another part's method) are not double counted: none of the parts call each other.
  const reads = [...spent.values()].reduce((t, e) => t + e.ms, 0) / RUNS;
  console.log(`\n=== ${minutes} m: ${passMs.toFixed(0)} ms a pass; storage reads ${reads.toFixed(0)} ms (${((100 * reads) / passMs).toFixed(0)} %), the rest ${(passMs - reads).toFixed(0)} ms`);
  for (const [name, e] of [...spent].sort(([, x], [, y]) => y.ms - x.ms).slice(0, 12)) {
    console.log(`${(e.ms / RUNS).toFixed(1).padStart(9)} ms  x${(e.n / RUNS).toFixed(0).padStart(5)}  ${name}`);
  }
}
await app.close();

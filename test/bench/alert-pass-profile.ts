/**
 * Where one alert pass spends its time on SQLite (not a benchmark:
 * `BENCH_DB=<copy of a kept verdicts bench database> node bin/run-ts.js test/bench/alert-pass-profile.ts [--incremental] [runs]`;
 * keep a database with `BENCH_KEEP_DB=1 npm run bench -- verdicts ...`; the pass stores its alerts,
 * so point it at a copy). Builds the collector on the database with a manual clock at its last
 * minute, runs one warm-up pass, then `runs` passes (default 3) at the same instant, and prints
 * per pass: the time in each rule (a rule that asks first for a window's analyses carries that
 * analysis; later rules reuse the pass's memo), each verdict analysis the pass ran and its window,
 * the time in storage reads by method, and what follows the rules (lifecycle, incidents,
 * notifications). Without `--incremental` every analysis is a full pass (`verdicts.incremental`
 * off); with it, the passes after the warm-up find nothing changed (the clock does not move).
 * Run it under `node --cpu-prof` for the function-level split.
 *
 * `--live` (with `--incremental`, as the bench's live fleet): before each pass the clock moves
 * 15 s and the live fleet's traffic of those 15 s is stored (every key dirty, probes every
 * minute), so each pass is what a running fleet's pass costs. `--profile=<file>` writes a CPU
 * profile of the passes alone (the traffic stored between them left out) through the inspector.
 * The figures to trust on a busy machine are the CPU ones (`process.cpuUsage`), not the times.
 */
import { buildApp } from '../../server/app.ts';
import { RULE_REGISTRY } from '../../server/alerts/rule-registry.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { loadLine } from './bench-engines.ts';
import { BENCH_DAY, liveTraffic } from './verdicts-seed.ts';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

const path = process.env.BENCH_DB;
if (!path) throw new Error('BENCH_DB=<path of a copy of a kept verdicts bench database> is required');
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const incremental = process.argv.includes('--incremental');
const live = process.argv.includes('--live');
const profileTo = process.argv.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
const db = openDatabase(path, { readonly: true });
const end = (db.prepare('SELECT MAX(minute) FROM key_minutes').pluck().get() as number) + 60_000;
const keyCount = db.prepare('SELECT COUNT(*) FROM keys').pluck().get() as number;
db.close();

const config = loadConfig({ env: { BREAKERBOX_DB: path, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
const clock = manualClock(end);
const app = await buildApp({ config: { ...config, verdicts: { ...config.verdicts, incremental } }, logger: false, clock });
await app.ready();

const spent = new Map<string, { n: number; ms: number }>();
let timing = false;
const add = (name: string, ms: number) => {
  if (!timing) return;
  const e = spent.get(name) ?? { n: 0, ms: 0 };
  e.n++;
  e.ms += ms;
  spent.set(name, e);
};
/** Wraps every method of `o` in place (the alert engine and the rules call them through the object) and times it as `part.method`. */
const timeInPlace = (part: string, o: object) => {
  const rec = o as Record<string, unknown>;
  for (const [name, fn] of Object.entries(rec)) {
    if (typeof fn !== 'function') continue;
    rec[name] = async (...args: unknown[]) => {
      const a = performance.now();
      try {
        return await (fn as (...x: unknown[]) => unknown).apply(o, args);
      } finally {
        add(`${part}.${name}`, performance.now() - a);
      }
    };
  }
};
for (const part of ['rollups', 'events', 'samples', 'telemetry', 'alerts', 'notifications'] as const) timeInPlace(`storage.${part}`, app.storage[part]);
const registry = RULE_REGISTRY as Record<string, (...x: unknown[]) => Promise<unknown>>;
for (const [name, rule] of Object.entries(registry)) {
  registry[name] = async (...args: unknown[]) => {
    const a = performance.now();
    try {
      return await rule(...args);
    } finally {
      add(`rule ${name}`, performance.now() - a);
    }
  };
}
const analyse = app.verdicts.analyse.bind(app.verdicts);
app.verdicts.analyse = async (range, options) => {
  const a = performance.now();
  try {
    return await analyse(range, options);
  } finally {
    add(`analyse ${(range.to - range.from) / 60_000} m${options?.keyId !== undefined ? ' (one key)' : ''}`, performance.now() - a);
  }
};

// The live fleet's next 15 s (every key every 10 s, probes every minute), as the verdicts bench stores them.
const shape = { ...BENCH_DAY, keys: keyCount };
const step = async () => {
  if (!live) return;
  const from = clock.now();
  clock.advance(15_000);
  await liveTraffic(app, shape, from, clock.now(), 1, true);
};
console.log(`${keyCount} keys, alert pass at ${new Date(end).toISOString()}, verdicts.incremental ${incremental ? 'on' : 'off'}${live ? ', live fleet (15 s of traffic stored before each pass)' : ''}, load average ${loadLine()}`);
await step();
const warm = performance.now();
const first = await app.alerts.evaluate(clock.now());
console.log(`warm-up pass ${(performance.now() - warm).toFixed(0)} ms: ${first.conditions} conditions, ${first.pending} pending, ${first.firing} firing`);
const session = profileTo ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
}
let passMs = 0;
let cpuMs = 0;
for (let i = 0; i < runs; i++) {
  await step();
  if (session) await session.post('Profiler.start');
  timing = true;
  const cpu = process.cpuUsage();
  const a = performance.now();
  await app.alerts.evaluate(clock.now());
  passMs += (performance.now() - a) / runs;
  cpuMs += (({ user, system }) => (user + system) / 1000 / runs)(process.cpuUsage(cpu));
  timing = false;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${profileTo}.${i}.cpuprofile`, JSON.stringify(profile));
  }
}
const stats = app.verdicts.cacheStats();
if (stats) console.log(`incremental passes: ${stats.full} full, ${stats.partial} partial, ${stats.reused} judging none`);
const rules = [...spent].filter(([n]) => n.startsWith('rule ')).reduce((t, [, e]) => t + e.ms, 0) / runs;
console.log(`\n${passMs.toFixed(0)} ms a pass (CPU ${cpuMs.toFixed(0)} ms), ${runs} passes; rules ${rules.toFixed(0)} ms, after the rules ${(passMs - rules).toFixed(0)} ms; load average ${loadLine()}`);
const show = (title: string, rows: [string, { n: number; ms: number }][]) => {
  console.log(`\n${title}`);
  for (const [name, e] of rows.sort(([, x], [, y]) => y.ms - x.ms)) console.log(`${(e.ms / runs).toFixed(1).padStart(9)} ms  x${(e.n / runs).toFixed(0).padStart(5)}  ${name}`);
};
show('per rule (the first rule to ask for a window carries its analysis):', [...spent].filter(([n]) => n.startsWith('rule ')));
show('verdict analyses (the pass memoises one per window):', [...spent].filter(([n]) => n.startsWith('analyse ')));
show('storage reads and writes (inside the rules and analyses too):', [...spent].filter(([n]) => n.startsWith('storage.')));
await app.close();

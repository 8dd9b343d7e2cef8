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
 */
import { buildApp } from '../../server/app.ts';
import { RULE_REGISTRY } from '../../server/alerts/rule-registry.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { loadLine } from './bench-engines.ts';

const path = process.env.BENCH_DB;
if (!path) throw new Error('BENCH_DB=<path of a copy of a kept verdicts bench database> is required');
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const incremental = process.argv.includes('--incremental');
const db = openDatabase(path, { readonly: true });
const end = (db.prepare('SELECT MAX(minute) FROM key_minutes').pluck().get() as number) + 60_000;
const keyCount = db.prepare('SELECT COUNT(*) FROM keys').pluck().get() as number;
db.close();

const config = loadConfig({ env: { BREAKERBOX_DB: path, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
const app = await buildApp({ config: { ...config, verdicts: { ...config.verdicts, incremental } }, logger: false, clock: manualClock(end) });
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

console.log(`${keyCount} keys, alert pass at ${new Date(end).toISOString()}, verdicts.incremental ${incremental ? 'on' : 'off'}, load average ${loadLine()}`);
const warm = performance.now();
const first = await app.alerts.evaluate(end);
console.log(`warm-up pass ${(performance.now() - warm).toFixed(0)} ms: ${first.conditions} conditions, ${first.pending} pending, ${first.firing} firing`);
timing = true;
const cpu = process.cpuUsage();
const a = performance.now();
for (let i = 0; i < runs; i++) await app.alerts.evaluate(end);
const passMs = (performance.now() - a) / runs;
const cpuMs = (({ user, system }) => (user + system) / 1000 / runs)(process.cpuUsage(cpu));
timing = false;
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

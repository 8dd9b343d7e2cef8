/**
 * What the `serving_degraded` rule adds to an alert pass on SQLite: `--operations` operations
 * (default 50) of `--services` services each (default 3), one `tasks` event per minute over the
 * rule's 6 h window, every `--degraded-every`-th (default 5; 0: none) served from level 3 (the rule fires for those), then
 * alert passes at the window's end with the rule off and on, on the same database file.
 * `npm run bench -- serving-degraded [--operations 50] [--services 3] [--degraded-every 5] [--rounds 5]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TasksEvent } from '@breakerbox/protocol';
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { loadLine } from './bench-engines.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const operations = arg('operations', 50);
const services = arg('services', 3);
const rounds = arg('rounds', 5);
/** Every n-th operation is served from level 3 (0: none, the common case). */
const every = arg('degraded-every', 5);
const MIN = 60_000;
const END = Date.parse('2026-12-03T09:00:05Z');
const dir = mkdtempSync(join(tmpdir(), 'bbx-serving-bench-'));

async function app(enabled: boolean) {
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ alerts: { rules: { serving_degraded: { enabled } } } }));
  const config = loadConfig({ env: { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_CONFIG: join(dir, 'config.json'), BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_SUSPICION_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const a = await buildApp({ config, logger: false, clock: manualClock(END) });
  await a.ready();
  return a;
}

const seeding = await app(false);
const token = (await seeding.storage.tokens.create('bench', ['admin'])).secret;
let rows = 0;
for (let s = 0; s < services; s++) {
  const events: TasksEvent[] = [];
  for (let op = 0; op < operations; op++) {
    const low = every > 0 && op % every === 0 ? 4 : 0;
    for (let m = END - 5_000 - 360 * MIN; m < END - 5_000; m += MIN) {
      events.push({ type: 'tasks', start: m, end: m + 10_000, operation: `op-${op}`, completed: 10, failed: 0, degraded: 0, attempts: 10 + low, cost_usd: 0.01, levels: { '0': 10 - low, ...(low ? { '3': low } : {}) }, fallback: { invoked: low, failed: 0 } });
    }
  }
  rows += events.length;
  for (let i = 0; i < events.length; i += 2000) {
    const res = await seeding.inject({ method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${token}` }, payload: { batch_id: `s${s}-${i}`, source: { service: `svc-${s}`, instance: 'pod-1', sdk: 'bench/0' }, events: events.slice(i, i + 2000) } });
    if (res.statusCode !== 200) throw new Error(`ingest refused: ${res.statusCode} ${res.body}`);
  }
}
await seeding.close();

console.log(`serving_degraded: ${operations} operations × ${services} services × 6 h = ${rows.toLocaleString('en')} task-minute rows; load ${loadLine()}`);
for (const enabled of [false, true]) {
  const a = await app(enabled);
  await a.alerts.evaluate(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await a.alerts.evaluate();
    ms.push(performance.now() - t);
  }
  const firing = (await a.alerts.engine.list({ state: 'firing', limit: 1000 })).filter((x) => x.rule === 'serving_degraded').length;
  ms.sort((x, y) => x - y);
  console.log(`rule ${enabled ? 'on ' : 'off'}: alert pass median ${ms[Math.floor(ms.length / 2)]!.toFixed(0)} ms (min ${ms[0]!.toFixed(0)}, max ${ms[ms.length - 1]!.toFixed(0)}), serving_degraded firing ${firing}`);
  await a.close();
}
if (process.env.BENCH_KEEP_DB) console.log(`kept ${join(dir, 'bbx.db')}`);
else rmSync(dir, { recursive: true, force: true });

/**
 * Heap and array buffers the kept verdict state holds (not a benchmark:
 * `BENCH_DB=<copy of a kept verdicts bench database> node --expose-gc bin/run-ts.js test/bench/kept-state-bytes.ts`):
 * the minute window's 16 minutes after one 15 m read, the kept folds of two windows (15 m and
 * 5 m), and the alert rules' kept probe minutes (6 h, counts for 1 h) after one read of each
 * rule's span, each measured after a forced GC; one throwaway probe log is read first so that
 * the statements' first-use cost is not counted.
 */
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { loadConfig } from '../../server/config/load.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { createMinuteWindow } from '../../server/verdicts/minute-window.ts';
import { createProbeMinuteLog } from '../../server/verdicts/probe-minute-log.ts';
import { floorMinute } from '../../server/verdicts/window.ts';
const path = process.env.BENCH_DB!;
const db = openDatabase(path, { readonly: true });
const end = (db.prepare('SELECT MAX(minute) FROM key_minutes').pluck().get() as number) + 60_000;
const keys = db.prepare('SELECT COUNT(*) FROM keys').pluck().get() as number;
db.close();
const config = loadConfig({ env: { BREAKERBOX_DB: path, BREAKERBOX_ALERT_INTERVAL_S: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
const app = await buildApp({ config, logger: false, clock: manualClock(end) });
await app.ready();
const gc = (globalThis as { gc: () => void }).gc;
const heap = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
let h = heap();
const w = createMinuteWindow(app.storage.rollups, app.storageChanges, 16 * 60_000);
await w.read(floorMinute(end - 15 * 60_000), end);
const minutesOnly = heap() - h;
h = heap();
await w.read(floorMinute(end - 15 * 60_000), end - 1); // the same first minute: the kept fold is built
await w.read(floorMinute(end - 5 * 60_000), end);
const withPrefixes = heap() - h;
// warm the statements up with a throwaway log first
const rules0 = app.config.alerts.rules;
const warm = createProbeMinuteLog(app.storage.rollups, app.storageChanges, rules0.prober_silent.lookback_s * 1000 + 120_000, rules0.probe_failing.lookback_s * 1000 + 120_000);
await warm.probeActivity(floorMinute(end - rules0.prober_silent.lookback_s * 1000), end);
await warm.probeOutcomes(floorMinute(end - rules0.probe_failing.lookback_s * 1000), end);
h = heap();
const rules = app.config.alerts.rules;
const log = createProbeMinuteLog(app.storage.rollups, app.storageChanges, rules.prober_silent.lookback_s * 1000 + 120_000, rules.probe_failing.lookback_s * 1000 + 120_000);
await log.probeActivity(floorMinute(end - rules.prober_silent.lookback_s * 1000), end);
await log.probeOutcomes(floorMinute(end - rules.probe_failing.lookback_s * 1000), end);
const logBytes = heap() - h;
console.log(JSON.stringify({ keys, minutesOnly, prefixes2: withPrefixes, perKeyPrefixes: withPrefixes / keys, logHeap: logBytes, logSize: log.size(), perKeyLog: logBytes / keys, warmRows: warm.size().rows }));
await app.close();

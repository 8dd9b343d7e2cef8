/**
 * A backlog arriving late, on PostgreSQL (migration 031): after a collector outage the SDKs
 * send minutes an hour or two old, and every rollup row such a batch writes bumps its hour's
 * version (the hourly aggregates are rebuilt from it). One group of 8 batches × 1,000
 * windows (200 keys × 5 minutes per batch, each batch its own instance) is written through
 * the storage interface in one transaction, on fresh databases:
 *  - PostgreSQL with the row-level triggers of migration 002 put back (before 031),
 *  - PostgreSQL as migrated (031: one bump per hour per statement),
 *  - SQLite, for reference (its row triggers update the version row in place).
 * Each is timed over `BENCH_ROUNDS` (default 3) fresh groups; median and best are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minuteOf, type TelemetryBatch, type WindowEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import type { Storage } from '../../server/storage/storage.ts';
import { RETENTION, postgresAvailable, startPostgresCluster } from '../support/postgres-cluster.ts';
import { loadLine } from './bench-engines.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KEYS = 200;
const MINUTES = 5;
const BATCHES = 8;

/** The row-level bumps of migrations/postgres/002, as they were before 031. */
const ROW_TRIGGERS = `
DROP TRIGGER key_minutes_late_insert ON key_minutes; DROP TRIGGER key_minutes_late_update ON key_minutes;
DROP TRIGGER probe_minutes_late_insert ON probe_minutes; DROP TRIGGER probe_minutes_late_update ON probe_minutes;
DROP TRIGGER key_minute_sources_late_insert ON key_minute_sources;
CREATE FUNCTION bump_rollup_hour() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = rollup_hour_changes.version + 1;
  RETURN NULL;
END; $$;
${['key_minutes:INSERT', 'key_minutes:UPDATE', 'probe_minutes:INSERT', 'probe_minutes:UPDATE', 'key_minute_sources:INSERT'].map((spec) => {
  const [table, op] = spec.split(':');
  return `CREATE TRIGGER ${table}_late_${op!.toLowerCase()} AFTER ${op} ON ${table} FOR EACH ROW
  WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000) EXECUTE FUNCTION bump_rollup_hour();`;
}).join('\n')}`;

/** One late group: 8 instances' batches of the same 200 keys × 5 minutes, `hoursAgo` back. */
function group(round: number, hoursAgo: number): TelemetryBatch[] {
  const first = minuteOf(Date.now() - hoursAgo * 3_600_000);
  return Array.from({ length: BATCHES }, (_, b) => ({
    batch_id: `late-${round}-${b}-${Math.random()}`,
    source: { service: 'backlog', instance: `pod-${b}` },
    events: Array.from({ length: KEYS * MINUTES }, (_, i): WindowEvent => {
      const start = first + Math.floor(i / KEYS) * 60_000;
      return {
        type: 'window', start, end: start + 10_000, key: { provider: 'openai', endpoint: 'chat', model: `model-${i % KEYS}` },
        calls: 20, ok: 18, slow: 1, errors: { server: 2 }, rejected: 0, short_circuited: 0, retries: 1, cold_excluded: 0,
        half_open: { ok: 0, failed: 0 }, latency_ms: { bounds: [100, 1000], counts: [10, 8, 2] },
        input_tokens: 100, output_tokens: 50, cost_usd: 0.001,
      };
    }),
  }));
}

async function timeGroups(label: string, open: () => Promise<Storage>): Promise<{ label: string; median: number; best: number }> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const storage = await open();
    try {
      const batches = group(round, 1 + (round % 2));
      const started = performance.now();
      await storage.telemetry.insertBatches(batches, Date.now());
      times.push(performance.now() - started);
    } finally {
      await storage.close();
    }
  }
  times.sort((a, b) => a - b);
  console.log(`  ${label}: ${times.map((t) => `${t.toFixed(0)} ms`).join(', ')}`);
  return { label, median: times[Math.floor(times.length / 2)]!, best: times[0]! };
}

const dir = mkdtempSync(join(tmpdir(), 'bbx-late-'));
const clock = manualClock(Date.now());
const rows: { label: string; median: number; best: number }[] = [];
const cluster = postgresAvailable() ? await startPostgresCluster({ durable: true }) : null;
try {
  console.log(`late backlog: one transaction of ${BATCHES} batches × ${KEYS * MINUTES} windows, minutes 1-2 h old, ${ROUNDS} rounds each`);
  let n = 0;
  rows.push(await timeGroups('SQLite', async () => createSqliteStorage({ path: join(dir, `late-${n++}.db`), clock, retention: RETENTION, retryAfterS: 1 })));
  if (cluster) {
    const open = async (rowTriggers: boolean) => {
      const storage = await createPostgresStorage({ url: await cluster.createDatabase(`late_${n++}`), clock, retryAfterS: 1, retention: RETENTION });
      if (rowTriggers) await storage.pool.query(ROW_TRIGGERS);
      return storage;
    };
    rows.push(await timeGroups('PostgreSQL, row triggers (before 031)', () => open(true)));
    rows.push(await timeGroups('PostgreSQL, statement triggers (031)', () => open(false)));
  } else {
    console.log('  PostgreSQL is not installed here: SQLite only');
  }
} finally {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\nresults (load average ${loadLine()}): time to store one late group of ${BATCHES * KEYS * MINUTES} windows`);
for (const r of rows) console.log(`${r.label.padEnd(40)} median ${r.median.toFixed(0).padStart(6)} ms   best ${r.best.toFixed(0).padStart(6)} ms`);

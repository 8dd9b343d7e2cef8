/**
 * `npm run bench -- pg-storage`: the storage engines' ingest write path, below HTTP. The
 * same batches (1,000 windows over 200 keys, with their rollups, totals and batch id) go
 * through the SQLite engine's write path (WAL, synchronous=FULL) and the PostgreSQL engine's
 * (a local cluster with PostgreSQL's durable defaults: fsync on, synchronous_commit on),
 * then through two PostgreSQL storages at once (two collectors on one database): combined rate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TelemetryBatch, WindowEvent } from '@breakerbox/protocol';
import { systemClock } from '../../server/clock.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { createTelemetryStore } from '../../server/storage/sqlite/telemetry-store.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { RETENTION, startPostgresCluster } from '../support/postgres-cluster.ts';

const BATCH = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const KEYS = Array.from({ length: 200 }, (_, i) => ({
  provider: ['openai', 'anthropic', 'together'][i % 3]!, endpoint: 'chat', model: `org/model-${i}:v1`, region: ['us-east', 'eu-west'][i % 2]!,
}));

let seq = 0;
function batchOf(seed: number, instance: string): TelemetryBatch {
  const now = Date.now() - (Date.now() % 10_000);
  const events: WindowEvent[] = Array.from({ length: BATCH }, (_, i) => {
    const end = now - (Math.floor(i / KEYS.length) + (seed % 6)) * 10_000;
    return {
      type: 'window', start: end - 10_000, end, key: KEYS[i % KEYS.length]!, calls: 50 + (i % 50), ok: 45, slow: 2,
      errors: { server: 2, rate_limit: 1 }, rejected: 0, short_circuited: 0, retries: 3, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
      latency_ms: { bounds: [100, 250, 500, 1000, 2500], counts: [5, 10, 20, 10, 4, 1] },
      ttft_ms: { bounds: [100, 250, 500], counts: [10, 20, 15, 5] }, input_tokens: 4000, output_tokens: 1200, cost_usd: 0.012,
    };
  });
  return { batch_id: `bench-${process.pid}-${seq++}`, source: { service: 'bench', instance }, events };
}

async function timed(write: (b: TelemetryBatch) => Promise<unknown> | unknown, instance: string): Promise<number> {
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    await write(batchOf(n, instance));
    n++;
  }
  return (n * BATCH) / ((performance.now() - started) / 1000);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
const dir = mkdtempSync(join(tmpdir(), 'bbx-bench-'));
const cluster = await startPostgresCluster({ durable: true });
try {
  const db = openDatabase(join(dir, 'bench.db'));
  applyMigrations(db);
  const sqlite = createTelemetryStore(db);
  const sqliteRate = await timed((b) => sqlite.insertBatch(b, Date.now()), 'pod-1');
  db.close();

  const a = await createPostgresStorage({ url: cluster.url, clock: systemClock, retryAfterS: 1, retention: RETENTION });
  const b = await createPostgresStorage({ url: cluster.url, clock: systemClock, retryAfterS: 1, retention: RETENTION });
  const one = await timed((x) => a.telemetry.insertBatch(x, Date.now()), 'pod-1');
  const [r1, r2] = await Promise.all([
    timed((x) => a.telemetry.insertBatch(x, Date.now()), 'pod-2'),
    timed((x) => b.telemetry.insertBatch(x, Date.now()), 'pod-3'),
  ]);
  await a.close();
  await b.close();
  console.log(`batches of ${BATCH} windows over ${KEYS.length} keys, ${SECONDS} s each, one batch in flight per writer`);
  console.log('engine                                   events/s');
  console.log(`SQLite write path (WAL, sync=FULL)      ${fmt(sqliteRate)}`);
  console.log(`PostgreSQL, one collector               ${fmt(one)}`);
  console.log(`PostgreSQL, two collectors combined     ${fmt(r1! + r2!)}  (${fmt(r1!).trim()} + ${fmt(r2!).trim()})`);
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * What the change log adds to one PostgreSQL ingest transaction (docs/verdict-engine.md,
 * "Several collectors"): the time of the `change_log` insert of one 1,000-window batch over
 * 200 keys (200 rows), inside a transaction, beside the whole batch through the storage.
 * `node bin/run-ts.js test/bench/change-log-cost.ts` (a throwaway durable cluster).
 */
import { manualClock } from '../../server/clock.ts';
import { ChangeLogRows } from '../../server/storage/postgres/change-log.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { RETENTION, startPostgresCluster } from '../support/postgres-cluster.ts';
import { windows } from '../verdicts/support.ts';
import { loadLine } from './bench-engines.ts';

const KEYS = 200;
const N = 300;
const start = Date.UTC(2026, 0, 5, 10, 0, 0);
const cluster = await startPostgresCluster({ durable: true });
try {
  const url = await cluster.createDatabase('change_log_cost');
  const storage = await createPostgresStorage({ url, clock: manualClock(start), retryAfterS: 1, retention: RETENTION });
  const keys = Array.from({ length: KEYS }, (_, i) => ({ provider: 'openai', endpoint: 'chat', model: `m-${i}` }));
  const batch = (n: number) => ({
    batch_id: `b-${n}`, source: { service: 'api', instance: 'a', sdk: 'bench' },
    events: keys.flatMap((k) => windows(k, start + n * 50_000, start + n * 50_000 + 50_000, { calls: 10 })),
  });
  // The whole batch through the storage (its change-log rows included).
  for (let i = 0; i < 20; i++) await storage.telemetry.insertBatch(batch(i), start);
  const t0 = performance.now();
  for (let i = 20; i < 20 + N / 3; i++) await storage.telemetry.insertBatch(batch(i), start);
  const perBatch = (performance.now() - t0) / (N / 3);
  const events = batch(0).events.length;
  // The change-log insert alone, in one open transaction (no commit per statement: the insert's own cost).
  const ids = [...(await storage.telemetry.keys()).keys()];
  const client = await storage.pool.connect();
  await client.query('BEGIN');
  const rows = new ChangeLogRows();
  for (const [i, e] of batch(0).events.entries()) rows.add(ids[i % ids.length], e);
  for (let i = 0; i < 20; i++) await rows.write(client);
  const t1 = performance.now();
  for (let i = 0; i < N; i++) await rows.write(client);
  const perInsert = (performance.now() - t1) / N;
  await client.query('ROLLBACK');
  client.release();
  console.log(`batch of ${events} windows over ${KEYS} keys: ${perBatch.toFixed(1)} ms through the storage; its change_log insert (${KEYS} rows) ${perInsert.toFixed(2)} ms = ${((perInsert / perBatch) * 100).toFixed(1)} % (${loadLine()})`);
  await storage.close();
} finally {
  await cluster.stop();
}

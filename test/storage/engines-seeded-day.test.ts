/**
 * The verdicts benchmark's seeded day (test/bench/verdicts-seed.ts) at a small size on both
 * engines: SQLite through better-sqlite3 with its triggers, PostgreSQL through the bulk sink
 * with its triggers switched off and their effect applied; the read API answers the same, so
 * the benchmark's two rows of p95s read the same data.
 */
import { minuteOf } from '@breakerbox/protocol';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { tempDir, testConfig } from '../server/helpers.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';
import { sqlOf } from '../support/sql.ts';
import { postgresSink, sqliteSink, type SeedSink } from '../bench/seed-sink.ts';
import { seedDay, type DayShape } from '../bench/verdicts-seed.ts';

const pgc = usePostgresCluster();

const NOW = minuteOf(Date.now());
const ADMIN = 'bbx_seeded_day_admin_secret_0123456789';
/**
 * Every kind of key (flapping, outage, auth, healthy), 4 hours of which the last 15 minutes go
 * through the store: the 15m window is read from rows the store wrote, the 6h and 24h windows
 * from both. (The store's path costs the most CPU per event: a whole hour of it made the check
 * time out on a busy machine without checking anything more.)
 */
const SMALL_DAY: DayShape = { keys: 36, instances: 3, services: 2, hours: 4, recentHours: 0.25, locations: ['eu-west', 'us-east'], operations: 4 };

async function seeded(db: string, sink: (app: FastifyInstance) => SeedSink, shape = SMALL_DAY): Promise<FastifyInstance> {
  const app = await buildApp({
    config: { ...testConfig(db, { BREAKERBOX_ADMIN_TOKEN: ADMIN, BREAKERBOX_ALERT_INTERVAL_S: '0' }), api: { default_limit: 500, max_limit: 5000, read_worker: false } },
    logger: false,
    clock: manualClock(NOW),
  });
  await app.ready();
  const s = sink(app);
  pgc.defer(() => app.close());
  pgc.defer(() => s.close());
  await seedDay(app, s, shape, NOW);
  await app.storage.rollups.warmHours(86_400_000, NOW);
  return app;
}

const get = async (app: FastifyInstance, url: string) => {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN}` } });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
};

describe.skipIf(!pgc.available)('the verdicts benchmark day on both engines', () => {
  it('gives the same verdicts and key figures on SQLite and PostgreSQL', async () => {
    const tmp = tempDir();
    pgc.defer(tmp.cleanup);
    const sqlite = await seeded(join(tmp.dir, 'bbx.db'), (app) => sqliteSink(sqlOf(app)));
    const url = await pgc.database('seeded_day');
    const postgres = await seeded(url, () => postgresSink(url));

    const verdicts = await get(sqlite, '/api/verdicts?window=15m');
    const tally = (v: { verdict: string }[]) => [...new Set(v.map((x) => x.verdict))].sort();
    expect(tally(verdicts.verdicts)).toEqual(['healthy', 'provider_outage', 'self_inflicted']);
    for (const url of ['/api/verdicts?window=15m', '/api/keys?window=15m', '/api/verdicts?window=6h', '/api/keys?window=6h', '/api/verdicts?window=24h', '/api/keys?window=24h']) {
      expect(await get(postgres, url), url).toEqual(await get(sqlite, url));
    }
  });

  it('leaves PostgreSQL the hour versions its triggers would have written row by row', async () => {
    const tiny: DayShape = { ...SMALL_DAY, keys: 12, instances: 2, hours: 3, recentHours: 1 };
    const bulkUrl = await pgc.database('seeded_versions_bulk');
    const bulk = await seeded(bulkUrl, () => postgresSink(bulkUrl), tiny);
    const firingUrl = await pgc.database('seeded_versions_firing');
    const firing = await seeded(firingUrl, () => postgresSink(firingUrl, { triggers: 'fire' }), tiny);
    // The directly written hours only: the store's batches bump the last hour through the real
    // triggers on both, by the wall clock (a minute may turn late between the two seeds).
    const direct = NOW - tiny.recentHours * 3_600_000;
    const versions = (u: string) => query(u, `SELECT hour, version FROM rollup_hour_changes WHERE hour < ${direct - (direct % 3_600_000)} ORDER BY hour`);
    const [a, b] = [await versions(bulkUrl), await versions(firingUrl)];
    expect(a.length).toBeGreaterThanOrEqual(tiny.hours - tiny.recentHours);
    expect(a).toEqual(b);
    expect(await get(bulk, '/api/verdicts?window=6h')).toEqual(await get(firing, '/api/verdicts?window=6h'));
  });
});

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

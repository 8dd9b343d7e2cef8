/**
 * The fleet decisions part through the storage interface, on both engines (PostgreSQL when a
 * local cluster is available): "two collectors" are two storages on one database, so what one
 * stores the other serves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetKeyTag, type BreakerKey } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import type { FleetDecisionRecord, Storage } from '../../server/storage/storage.ts';
import { tempDir } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();
const clock = manualClock(Date.now());
const ENGINES = [
  {
    name: 'sqlite',
    async collectors(n: number): Promise<Storage[]> {
      const tmp = tempDir();
      postgres.defer(tmp.cleanup);
      const s = createSqliteStorage({ path: join(tmp.dir, 'bbx.db'), clock, retention: RETENTION, retryAfterS: 1 });
      postgres.defer(() => s.close());
      return Array.from({ length: n }, () => s);
    },
  },
  ...(postgres.available ? [{
    name: 'postgres',
    async collectors(n: number): Promise<Storage[]> {
      const url = await postgres.database('fleet');
      const out: Storage[] = [];
      for (let i = 0; i < n; i++) {
        const s = await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION });
        postgres.defer(() => s.close());
        out.push(s);
      }
      return out;
    },
  }] : []),
];

const T = 1_764_000_000_000;
const KEY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:free@v2', region: 'us-east' };
const row = (o: Partial<FleetDecisionRecord> = {}): FleetDecisionRecord => ({
  id: 'd1', kind: 'outage', key: KEY, keyTag: fleetKeyTag(KEY), origin: 'verdict', reason: 'provider_outage', createdBy: null, locations: ['eu-west', 'us-east'],
  issuedAt: T, updatedAt: T, expiresAt: T + 60_000, endedAt: null, endedBy: null, ...o,
});

describe.each(ENGINES)('$name engine: fleet decisions', ({ collectors }) => {
  it('stores a decision on one collector that the other serves, renews it while it runs and ends it once', async () => {
    const [leader, follower] = await collectors(2);
    await leader!.fleet.insert(row());
    await leader!.fleet.insert(row({ id: 'd2', kind: 'drain', origin: 'operator', createdBy: 'oncall', locations: [], expiresAt: T + 3_600_000, issuedAt: T + 1 }));
    expect((await follower!.fleet.running(T + 1_000, ['outage', 'drain'])).map((d) => d.id)).toEqual(['d1', 'd2']);
    expect((await follower!.fleet.running(T + 1_000, ['drain']))[0]).toMatchObject({ key: KEY, createdBy: 'oncall', locations: [] });

    await leader!.fleet.renew('d1', T + 90_000, T + 30_000);
    const [renewed] = await follower!.fleet.running(T + 61_000, ['outage']);
    expect(renewed).toMatchObject({ id: 'd1', expiresAt: T + 90_000, updatedAt: T + 30_000, locations: ['eu-west', 'us-east'] });
    expect(await follower!.fleet.running(T + 90_000, ['outage'])).toEqual([]);

    await follower!.fleet.end('d2', T + 40_000, 'oncall');
    await follower!.fleet.end('d2', T + 50_000, 'someone-else');
    await leader!.fleet.renew('d2', T + 9_999_999, T + 60_000);
    expect(await leader!.fleet.running(T + 41_000, ['drain'])).toEqual([]);
    const audit = await leader!.fleet.forKey(fleetKeyTag(KEY), T, 10);
    expect(audit.map((d) => [d.id, d.endedAt, d.endedBy, d.expiresAt])).toEqual([['d2', T + 40_000, 'oncall', T + 3_600_000], ['d1', null, null, T + 90_000]]);
    expect(await leader!.fleet.forKey(fleetKeyTag({ ...KEY, region: 'eu-west' }), T, 10)).toEqual([]);
  });
});

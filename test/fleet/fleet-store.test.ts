/**
 * The fleet decisions part through the storage interface, on both engines (PostgreSQL when a
 * local cluster is available): "two collectors" are two storages on one database, so what one
 * stores the other serves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetKeyTag, type BreakerKey, type ProbeEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import type { FleetDecisionRecord, Storage } from '../../server/storage/storage.ts';
import { createFleetService } from '../../server/fleet/fleet-service.ts';
import { createRecoveryProbes, recoveryIntervalMs } from '../../server/fleet/recovery-probes.ts';
import { batch, tempDir, windowEvent } from '../server/helpers.ts';
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
  issuedAt: T, updatedAt: T, expiresAt: T + 60_000, endedAt: null, endedBy: null, keyId: null, ...o,
});

describe.each(ENGINES)('$name engine: fleet decisions', ({ collectors }) => {
  it('stores a decision on one collector that the other serves, renews it while it runs and ends it once', async () => {
    const [leader, follower] = await collectors(2);
    await leader!.fleet.insert(row({ keyId: 42 }));
    await leader!.fleet.insert(row({ id: 'd2', kind: 'drain', origin: 'operator', createdBy: 'oncall', locations: [], expiresAt: T + 3_600_000, issuedAt: T + 1 }));
    expect((await follower!.fleet.running(T + 1_000, ['outage', 'drain'])).map((d) => d.id)).toEqual(['d1', 'd2']);
    expect((await follower!.fleet.running(T + 1_000, ['drain']))[0]).toMatchObject({ key: KEY, createdBy: 'oncall', locations: [], keyId: null });
    expect((await follower!.fleet.running(T + 1_000, ['outage']))[0]).toMatchObject({ keyId: 42 });

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

  it("ends, of the running outages the leader's tick read once, those whose deciding locations probe ok again and hands back the rest for its recovery probes, using the key ids kept with them", async () => {
    const [s] = await collectors(1);
    const OTHER: BreakerKey = { ...KEY, model: 'meta-llama/Llama-3.1-8B-Instruct' };
    const probe = (key: BreakerKey, location: string, outcome: ProbeEvent['outcome']): ProbeEvent => ({ type: 'probe', ts: T - 1_000, key, location, outcome, latency_ms: { total: 90 } });
    await s!.telemetry.insertBatch(batch([probe(KEY, 'eu-west', 'ok'), probe(KEY, 'us-east', 'ok'), probe(OTHER, 'eu-west', 'error'), probe(OTHER, 'us-east', 'ok')]), T);
    const [keyId, otherId] = [await s!.telemetry.findKeyId(KEY), await s!.telemetry.findKeyId(OTHER)];
    await s!.fleet.insert(row({ id: 'ok-again', keyId: keyId! }));
    await s!.fleet.insert(row({ id: 'still-failing', key: OTHER, keyTag: fleetKeyTag(OTHER), keyId: otherId! }));
    let lookups = 0;
    const telemetry = { findKeyId: async (k: BreakerKey) => (lookups++, s!.telemetry.findKeyId(k)) } as Storage['telemetry'];
    const service = createFleetService({ fleet: s!.fleet, events: s!.events, telemetry }, { ttlMs: 60_000, maxProbeAgeMs: 120_000 });
    const { recovered, stillRunning } = await service.checkRecoveries(T, await s!.fleet.running(T, ['outage']));
    expect(recovered).toBe(1);
    expect(stillRunning.map((d) => d.id)).toEqual(['still-failing']);
    expect(lookups).toBe(0);
    expect((await s!.fleet.running(T, ['outage'])).map((d) => d.id)).toEqual(['still-failing']);
    // The recovery decision keeps the key id too.
    expect(await s!.fleet.running(T, ['recovered'])).toEqual([expect.objectContaining({ kind: 'recovered', key: KEY, keyId })]);
  });

  it('asks each deciding location for a recovery probe every recovery_probe_s, doubling each minute of the outage, within the hourly budget; any collector hands them out', async () => {
    const [leader, follower] = await collectors(2);
    await leader!.telemetry.insertBatch(batch([windowEvent({ key: KEY, start: T - 20_000, end: T - 10_000 })]), T);
    const keyId = await leader!.telemetry.findKeyId(KEY);
    const outage = row({ keyId: keyId! });
    // The key id travels with the outage: the tick never looks it up.
    let lookups = 0;
    const telemetry = { findKeyId: async (k: BreakerKey) => (lookups++, leader!.telemetry.findKeyId(k)) } as Storage['telemetry'];
    const probes = createRecoveryProbes({ suspicions: leader!.suspicions, telemetry }, { baseMs: 5_000, perLocationPerHour: 8, requestTtlMs: 600_000 });
    expect(await probes.queue(T + 4_999, [outage])).toBe(0);
    expect(await probes.queue(T + 5_000, [outage])).toBe(2);
    expect(await probes.queue(T + 9_999, [outage])).toBe(0);
    expect(await probes.queue(T + 10_000, [outage])).toBe(2);
    // A minute in, the interval is 10 s.
    expect(await probes.queue(T + 60_000, [outage])).toBe(2);
    expect(await probes.queue(T + 65_000, [outage])).toBe(0);
    expect(await probes.queue(T + 70_000, [outage])).toBe(2);
    const taken = await follower!.suspicions.take('eu-west', T + 70_000, 20);
    expect(taken.map((r) => [r.key, r.requested_at, r.suspicion_id])).toEqual([[KEY, T + 5_000, 0], [KEY, T + 10_000, 0], [KEY, T + 60_000, 0], [KEY, T + 70_000, 0]]);
    // The hourly budget of a location (8 here) bounds them: four more each, then none.
    let later = 0;
    for (let t = T + 80_000; t < T + 600_000; t += 20_000) later += await probes.queue(t, [outage]);
    expect(later).toBe(8);
    expect(lookups).toBe(0);
    // An ended outage asks for nothing; a drain never does.
    expect(await probes.queue(T + 3_700_000, [])).toBe(0);
    expect(await probes.queue(T + 3_700_000, [row({ id: 'd3', kind: 'drain', origin: 'operator', locations: [] })])).toBe(0);
    // A row stored before the key id was kept with it (migration 066) is looked up instead.
    const legacy = createRecoveryProbes({ suspicions: leader!.suspicions, telemetry }, { baseMs: 5_000, perLocationPerHour: 100, requestTtlMs: 600_000 });
    expect(await legacy.queue(T + 5_000, [row({ id: 'd4', keyId: null })])).toBe(2);
    expect(lookups).toBe(1);
    expect([0, 59_999, 60_000, 120_000, 180_000, 600_000].map((age) => recoveryIntervalMs(5_000, age))).toEqual([5_000, 5_000, 10_000, 20_000, 40_000, 60_000]);
  });
});

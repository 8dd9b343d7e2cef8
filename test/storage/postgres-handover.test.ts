/**
 * Two collectors on one PostgreSQL: the leader evaluates and pages; when its lease session
 * dies the other takes over, and the firing alert keeps firing without a second page (the
 * notification state is in the database, not in the dead process); a pass the old leader
 * still runs after losing the lease stores and sends nothing.
 */
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEADER_LOCK_KEY } from '../../server/storage/postgres/leader-lease.ts';
import { receiver, type Receiver } from '../alerts/receiver.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const postgres = usePostgresCluster();
const K1: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
let hook: Receiver;
let a: TestCollector;
let b: TestCollector;
let url: string;

beforeAll(async () => {
  if (!postgres.available) return;
  url = await postgres.database('handover');
  hook = await receiver();
  postgres.defer(() => hook.close());
  const config = {
    // clients_degraded (critical) would fire on the same key and lead the grouped page; this test follows open_share alone.
    alerts: { rules: { open_share: { for_s: 120 }, clients_degraded: { enabled: false } } },
    notifiers: [{ name: 'hook', type: 'webhook', url: `${hook.url}/hooks/x`, min_severity: 'info', repeat_interval_s: 600, retries: 0 }],
  };
  a = await collector({ config, env: { BREAKERBOX_DB: url }, tokenName: 'a' });
  postgres.defer(() => a.close());
  b = await collector({ config, env: { BREAKERBOX_DB: url }, tokenName: 'b' });
  postgres.defer(() => b.close());
});

const events = () => hook.received.filter((r) => r.body.alert.rule === 'open_share').map((r) => r.body.event);

async function endLeaderSession(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ((classid::bigint << 32) | objid::bigint) = $1`, [LEADER_LOCK_KEY.toString()]);
  await admin.end();
}

describe.skipIf(!postgres.available)('leader handover on PostgreSQL', () => {
  it('keeps a firing alert firing across a takeover and does not page it twice', async () => {
    await expect.poll(async () => (await a.app.storage.lease.tick()) !== (await b.app.storage.lease.tick())).toBe(true);
    const [leader, follower] = a.app.storage.lease.isHeld() ? [a, b] : [b, a];
    const base = leader.now - 60 * MIN;
    const at = (m: number) => base + m * MIN;
    const traffic: TelemetryEvent[] = [
      transition(K1, base - MIN, null, 'closed', 'created'),
      ...windows(K1, base, leader.now, { calls: 10, errors: { server: 1 }, retries: 8 }),
      transition(K1, at(20), 'closed', 'open'),
      transition(K1, at(24), 'open', 'closed', 'probes_succeeded'),
    ];
    // Ingest through both collectors: any of them accepts it.
    await leader.send({ service: 'ticket-drafts', instance: 'pod-1' }, traffic);
    await follower.send({ service: 'prober', instance: 'eu' }, probes(K1, 'eu-west', base, leader.now, 'ok'));

    await leader.app.alerts.evaluate(at(25));
    await leader.app.alerts.evaluate(at(27));
    await leader.app.alerts.idle();
    expect(events()).toEqual(['firing']);
    const [firing] = (await follower.get('/api/alerts?state=firing')).alerts;
    expect(firing).toMatchObject({ rule: 'open_share', state: 'firing', fired_at: at(27) });

    // The leader's session ends as it does when its process is killed; the follower takes over.
    await endLeaderSession();
    await expect.poll(() => follower.app.storage.lease.tick()).toBe(true);
    expect(await leader.app.storage.lease.tick()).toBe(false);

    await follower.app.alerts.evaluate(at(28));
    await follower.app.alerts.idle();
    const [still] = (await follower.get('/api/alerts?state=firing')).alerts;
    expect(still).toMatchObject({ id: firing.id, state: 'firing', fired_at: at(27) });
    expect(events()).toEqual(['firing']);

    // A pass the old leader still runs (its process hung past the lease) stores and sends nothing.
    const stale = await leader.app.alerts.evaluate(at(45));
    await leader.app.alerts.idle();
    expect(stale).toMatchObject({ notifications: 0, resolved: 0 });
    expect(events()).toEqual(['firing']);
    expect((await follower.get('/api/alerts?state=firing')).alerts.map((x: { id: number }) => x.id)).toEqual([firing.id]);

    // Once the open time falls out of the window the new leader resolves it, and says so once.
    await follower.app.alerts.evaluate(at(45));
    await follower.app.alerts.evaluate(at(46));
    await follower.app.alerts.idle();
    expect(events()).toEqual(['firing', 'resolved']);
  });
});

/**
 * Two `breakerbox server` processes on one PostgreSQL: batches sent to either are readable
 * from both, a batch id repeated to the other is recognised, a batch acknowledged right
 * before kill -9 is kept, and the leader lease moves to the survivor.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEADER_LOCK_KEY } from '../../server/storage/postgres/leader-lease.ts';
import { ADMIN, eventually, exited, startProcess, type ServerProcess } from '../server/process-harness.ts';
import { KEY, batch, windowEvent } from '../server/helpers.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();
let url: string;
let db: pg.Client;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  if (!postgres.available) return;
  url = await postgres.database('processes');
  db = new pg.Client({ connectionString: url });
  await db.connect();
  postgres.defer(() => db.end());
  // The processes die before the session above ends (deferred cleanups run last first).
  postgres.defer(() => cleanups.forEach((c) => c()));
});

const post = (p: ServerProcess, body: unknown) =>
  fetch(`${p.url}/v1/telemetry`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });
const keysOf = async (p: ServerProcess) =>
  ((await (await fetch(`${p.url}/api/keys?window=1h`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as { keys: { key: { model: string } }[] }).keys.map((k) => k.key.model).sort();
const leaderPid = async () =>
  ((await db.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1`, [LEADER_LOCK_KEY.toString()])).rows[0]?.pid as number | undefined) ?? null;

describe.skipIf(!postgres.available)('two collector processes on one PostgreSQL', () => {
  it('share ingest and reads, recognise repeated batch ids, keep an acknowledged batch through kill -9, and hand over the lease', async () => {
    const first = await startProcess(url, cleanups);
    await eventually(async () => (await leaderPid()) !== null, 'the first collector takes the leader lease');
    const firstLeader = await leaderPid();
    const second = await startProcess(url, cleanups);

    const toFirst = batch([windowEvent({ key: { ...KEY, model: 'org/a:1' } })]);
    const toSecond = batch([windowEvent({ key: { ...KEY, model: 'org/b@2' } })]);
    expect(await (await post(first, toFirst)).json()).toEqual({ accepted: 1, duplicate: false });
    expect(await (await post(second, toSecond)).json()).toEqual({ accepted: 1, duplicate: false });
    expect(await keysOf(first)).toEqual(['org/a:1', 'org/b@2']);
    expect(await keysOf(second)).toEqual(['org/a:1', 'org/b@2']);
    expect(await (await post(second, toFirst)).json()).toEqual({ accepted: 0, duplicate: true });

    // Acknowledged, then killed at once: the batch is in the database (COMMIT returned before the 200).
    const last = batch([windowEvent({ key: { ...KEY, model: 'org/c' } })]);
    expect((await post(first, last)).status).toBe(200);
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect((await db.query('SELECT count(*)::int AS n FROM batches WHERE batch_id = $1', [last.batch_id])).rows[0].n).toBe(1);
    expect(await keysOf(second)).toEqual(['org/a:1', 'org/b@2', 'org/c']);

    // The survivor's lease session takes the lock once the dead one's is gone.
    await eventually(async () => {
      const pid = await leaderPid();
      return pid !== null && pid !== firstLeader;
    }, 'the second collector takes over the leader lease');
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });
});

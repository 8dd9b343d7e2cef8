import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { manualClock } from '../../server/clock.ts';
import { alwaysHeldLease, type LeaderLease } from '../../server/storage/parts/lease.ts';
import { LEADER_LOCK_KEY, createLeaderLease } from '../../server/storage/postgres/leader-lease.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();

async function contenders(n: number, clock = manualClock(1_000_000)) {
  const url = await postgres.database('lease');
  const list = Array.from({ length: n }, () => createLeaderLease(url, clock, { renewMs: 1000, holdMs: 4000 }));
  for (const l of list) postgres.defer(() => l.close());
  return { url, clock, list };
}

/** Ends the backend of whoever holds the leader lock, as the server does when the holder's process dies. */
async function killHolderSession(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ((classid::bigint << 32) | objid::bigint) = $1`,
      [LEADER_LOCK_KEY.toString()],
    );
    return rows.length;
  } finally {
    await admin.end();
  }
}

describe('leader lease on SQLite', () => {
  it('is always held: one collector is the only one', async () => {
    const lease = alwaysHeldLease();
    expect(lease.isHeld()).toBe(true);
    expect(await lease.tick()).toBe(true);
  });
});

describe.skipIf(!postgres.available)('leader lease on PostgreSQL', () => {
  it('has exactly one holder among collectors trying at once', async () => {
    const { list } = await contenders(3);
    const results = await Promise.all(list.map((l) => l.tick()));
    expect(results.filter(Boolean)).toHaveLength(1);
    // Renewals keep it where it is.
    const again = await Promise.all(list.map((l) => l.tick()));
    expect(again).toEqual(results);
    expect(list.map((l) => l.isHeld())).toEqual(results);
  });

  it('is taken over once the server ends the holder session, and the old holder knows it lost it', async () => {
    const { url, list } = await contenders(2);
    const [a, b] = list as [LeaderLease, LeaderLease];
    const changes: boolean[] = [];
    a.onChange((held) => changes.push(held));
    expect(await a.tick()).toBe(true);
    expect(await b.tick()).toBe(false);
    // The server ends the session as it does when the holder's socket closes; the holder does not tick meanwhile.
    expect(await killHolderSession(url)).toBe(1);
    await expect.poll(() => b.tick()).toBe(true);
    expect(await a.tick()).toBe(false);
    expect(a.isHeld()).toBe(false);
    expect(changes).toEqual([true, false]);
    expect(await b.tick()).toBe(true);
  });

  it('is taken over after kill -9 of the holding process', async () => {
    const { url, list } = await contenders(1);
    const [b] = list as [LeaderLease];
    const script = fileURLToPath(new URL('./fixtures/lease-holder.ts', import.meta.url));
    const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
    const child = spawn(process.execPath, [runTs, script, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        child.once('exit', (code) => reject(new Error(`lease holder exited with ${code}`)));
      });
      expect(await b.tick()).toBe(false);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      await expect.poll(() => b.tick()).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is taken over from a holder that hangs with its session open: the server ends the session once it idled for the hold time', async () => {
    const url = await postgres.database('lease');
    const clock = manualClock(1_000_000);
    const [a, b] = [0, 1].map(() => createLeaderLease(url, clock, { renewMs: 100, holdMs: 500 })) as [LeaderLease, LeaderLease];
    for (const l of [a, b]) postgres.defer(() => l.close());
    expect(await a.tick()).toBe(true);
    // `a` stops ticking (a stopped process keeps its socket, and its kernel answers keepalives).
    await expect.poll(() => b.tick(), { timeout: 30_000 }).toBe(true);
    expect(await a.tick()).toBe(false);
  });

  it('hands over when the holder closes (a clean shutdown)', async () => {
    const { list } = await contenders(2);
    const [a, b] = list as [LeaderLease, LeaderLease];
    expect(await a.tick()).toBe(true);
    expect(await b.tick()).toBe(false);
    await a.close();
    expect(a.isHeld()).toBe(false);
    expect(await b.tick()).toBe(true);
  });

  it('stops acting as leader by itself once renewals stop for longer than the hold time', async () => {
    const { clock, list } = await contenders(1);
    const [a] = list as [LeaderLease];
    expect(await a.tick()).toBe(true);
    clock.advance(3_999);
    expect(a.isHeld()).toBe(true);
    clock.advance(1);
    // No tick ran (a blocked event loop, a hung round trip): the deadline alone ends it.
    expect(a.isHeld()).toBe(false);
    expect(await a.tick()).toBe(true);
  });
});

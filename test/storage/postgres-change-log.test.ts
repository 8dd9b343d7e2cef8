import { describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { watchChanges } from '../../server/storage/change-feed.ts';
import { createChangeLogPruner, createChangeLogReader } from '../../server/storage/postgres/change-log.ts';
import { createPool } from '../../server/storage/postgres/pool.ts';
import { createPostgresStorage, type PostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';
import { MIN, probes, windows } from '../verdicts/support.ts';

// A cluster of its own: snapshot xmins are cluster-wide, and other files' open transactions would hold them back.
const postgres = usePostgresCluster({ own: true });
const START = Date.UTC(2026, 0, 5, 10, 0, 7);
const GPT: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const CLAUDE: BreakerKey = { provider: 'anthropic', endpoint: 'chat', model: 'claude-sonnet-4', region: 'eu' };
const source = { service: 'api', instance: 'a', sdk: 'test/0' };

/** Two collectors on one fresh database, on one manual clock. */
async function collectors(): Promise<{ a: PostgresStorage; b: PostgresStorage; url: string; clock: ReturnType<typeof manualClock> }> {
  const url = await postgres.database('change_log');
  const clock = manualClock(START);
  const a = await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION });
  const b = await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION });
  postgres.defer(async () => {
    await a.close();
    await b.close();
  });
  return { a, b, url, clock };
}

let batch = 0;
const write = (s: PostgresStorage, events: Parameters<PostgresStorage['telemetry']['insertBatch']>[0]['events']) =>
  s.telemetry.insertBatch({ batch_id: `b-${batch++}`, source, events }, START);

describe.skipIf(!postgres.available)('the PostgreSQL change log', () => {
  it("brings another collector's writes into this collector's feed: the key, its earliest minute and latest time, probe results apart", async () => {
    const { a, b } = await collectors();
    const { feed } = watchChanges(a);
    await feed.sync!();
    const cursor = feed.cursor();
    await write(b, [...windows(GPT, START - 5 * MIN, START - 4 * MIN, { calls: 10 }), ...probes(CLAUDE, 'eu', START - 2 * MIN, START - MIN, 'ok')]);
    // A's own wrapped storage never saw it.
    expect(feed.since(cursor).keys.size).toBe(0);
    await feed.sync!();
    const c = feed.since(cursor);
    expect([...c.keys].sort()).toEqual([JSON.stringify(['anthropic', 'chat', 'claude-sonnet-4', 'eu']), JSON.stringify(['openai', 'chat', 'gpt-4o', ''])]);
    expect(c.probes).toBe(true);
    expect(c.minuteFrom).toBe(START - 5 * MIN - ((START - 5 * MIN) % MIN));
    expect(c.latestTs(JSON.stringify(['openai', 'chat', 'gpt-4o', '']))).toBe(START - 4 * MIN);
    // Keys A had never seen: new to its join groups.
    expect(c.global).toBe(true);
    // Known keys written again are not global; a read with nothing new changes nothing.
    const again = feed.cursor();
    await write(b, windows(GPT, START - 3 * MIN, START - 2 * MIN, { calls: 10 }));
    await feed.sync!();
    expect(feed.since(again).global).toBe(false);
    expect([...feed.since(again).keys]).toEqual([JSON.stringify(['openai', 'chat', 'gpt-4o', ''])]);
    const quiet = feed.cursor();
    await feed.sync!();
    expect(feed.since(quiet).keys.size).toBe(0);
  });

  it('reads a transaction that commits after a later one did, and reads no transaction twice', async () => {
    const { a, b, url } = await collectors();
    const reader = createChangeLogReader(a.pool);
    expect((await reader.read()).reset).toBe(true);
    await write(b, windows(GPT, START - 5 * MIN, START - 4 * MIN, { calls: 10 }));
    await write(b, windows(CLAUDE, START - 5 * MIN, START - 4 * MIN, { calls: 10 }));
    // A slow collector's transaction: it takes its id first and commits last.
    const slow = createPool(url, { max: 1 });
    postgres.defer(() => slow.end());
    const client = await slow.connect();
    await client.query('BEGIN');
    const slowXid = (await client.query<{ id: string }>('SELECT pg_current_xact_id()::text AS id')).rows[0]!.id;
    await write(b, windows(GPT, START - 3 * MIN, START - 2 * MIN, { calls: 10 }));
    const first = await reader.read();
    expect(first.reset).toBe(false);
    // Folded per key: gpt-4o's two transactions are one row, from the earlier minute to the later time.
    expect(first.rows.map((r) => [r.key?.model, r.minute, r.ts]).sort()).toEqual([['claude-sonnet-4', START - 5 * MIN - ((START - 5 * MIN) % MIN), START - 4 * MIN], ['gpt-4o', START - 5 * MIN - ((START - 5 * MIN) % MIN), START - 2 * MIN]].sort());
    // The open transaction holds the snapshot xmin at its id: the same rows are at or above it, and not given again.
    expect((await reader.read()).rows).toEqual([]);
    await client.query("INSERT INTO change_log (xid, key_id, kind, minute, ts) SELECT pg_current_xact_id(), id, 'key', 0, 1 FROM keys WHERE model = 'claude-sonnet-4'");
    await client.query('COMMIT');
    client.release();
    const late = await reader.read();
    expect(late.rows.map((r) => [r.kind, r.key?.model, r.ts])).toEqual([['key', 'claude-sonnet-4', 1]]);
    expect(BigInt(slowXid)).toBeLessThan(BigInt((await a.pool.query<{ x: string }>('SELECT max(xid::text::bigint)::text AS x FROM change_log')).rows[0]!.x));
    expect((await reader.read()).rows).toEqual([]);
  });

  it('prunes rows below a snapshot xmin noted at least the kept span ago; a reader whose cursor is older reads everything again', async () => {
    const { a, b } = await collectors();
    const pruner = createChangeLogPruner(b.pool, 10 * MIN);
    const regular = createChangeLogReader(a.pool);
    const paused = createChangeLogReader(a.pool);
    await regular.read();
    await paused.read();
    await write(b, windows(GPT, START - 5 * MIN, START - 4 * MIN, { calls: 10 }));
    await pruner.afterPrune(START, {});
    await write(b, windows(CLAUDE, START - 5 * MIN, START - 4 * MIN, { calls: 10 }));
    const count = async () => (await a.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM change_log')).rows[0]!.n;
    // Nothing noted long enough ago: nothing deleted.
    await pruner.afterPrune(START + 5 * MIN, {});
    expect(await count()).toBe(2);
    expect((await regular.read()).rows).toHaveLength(2);
    await pruner.afterPrune(START + 11 * MIN, {});
    // The first write's row is below the xmin noted at START; the second's is not.
    expect(await count()).toBe(1);
    const r = await regular.read();
    expect(r).toEqual({ rows: [], reset: false });
    const p = await paused.read();
    expect(p.reset).toBe(true);
    expect(p.rows.map((x) => x.key?.model)).toEqual(['claude-sonnet-4']);
  });

  it('logs pruning that deleted rows, per-minute rollup rows apart, and hourly builds and suspicions as global writes', async () => {
    const { a, b } = await collectors();
    const reader = createChangeLogReader(a.pool);
    await reader.read();
    const pruner = createChangeLogPruner(b.pool, 10 * MIN);
    await pruner.afterPrune(START, { raw_events: 0 });
    await pruner.afterPrune(START, { window_events: 3 });
    await pruner.afterPrune(START, { key_minutes: 1 });
    await pruner.afterPrune(START, null);
    await write(b, windows(GPT, START - 5 * MIN, START - 4 * MIN, { calls: 10 }));
    await b.rollups.buildHour(START - (START % 3_600_000) - 3_600_000, START);
    const keyId = (await b.telemetry.findKeyId(GPT))!;
    await b.suspicions.open({ keyId, startedAt: START, triggeredAt: START, reason: 'test', requests: [{ location: 'eu', notBefore: [START] }], ttlMs: MIN });
    await b.suspicions.take('eu', START, 10);
    await b.suspicions.take('eu', START, 10);
    expect((await reader.read()).rows.map((r) => r.kind).sort()).toEqual(['hour', 'key', 'prune', 'prune_minutes', 'suspicion']);
  });
});

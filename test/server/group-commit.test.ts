import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minuteOf, type TelemetryAck, type TelemetryBatch } from '@breakerbox/protocol';
import { createGroupCommit } from '../../server/ingest/group-commit.ts';
import { batch, makeApp, windowEvent } from './helpers.ts';

const ack = (b: TelemetryBatch): TelemetryAck => ({ accepted: b.events.length, duplicate: false });

describe('group commit', () => {
  it('writes the batches queued in one turn of the event loop in one transaction, each answered with its own ack', async () => {
    const groups: string[][] = [];
    const commit = createGroupCommit((batches) => {
      groups.push(batches.map((b) => b.batch_id));
      return batches.map(ack);
    });
    const a = batch([windowEvent()]);
    const b = batch([windowEvent(), windowEvent()]);
    const acks = await Promise.all([commit.write(a, 1), commit.write(b, 2)]);
    expect(groups).toEqual([[a.batch_id, b.batch_id]]);
    expect(acks).toEqual([{ accepted: 1, duplicate: false }, { accepted: 2, duplicate: false }]);
    // A batch queued later goes in a transaction of its own.
    await commit.write(a, 3);
    expect(groups).toHaveLength(2);
  });

  it('retries a failed group batch by batch, so only the faulty batch is refused', async () => {
    const bad = batch([windowEvent()]);
    const good = batch([windowEvent()]);
    const commit = createGroupCommit((batches) => {
      if (batches.includes(bad)) throw new Error('constraint failed');
      return batches.map(ack);
    });
    const [refused, stored] = await Promise.allSettled([commit.write(bad, 1), commit.write(good, 1)]);
    expect(refused).toMatchObject({ status: 'rejected', reason: { message: 'constraint failed' } });
    expect(stored).toEqual({ status: 'fulfilled', value: { accepted: 1, duplicate: false } });
  });

  it('does not retry a group whose error is final (the storage is down): every batch gets that error once', async () => {
    let calls = 0;
    const commit = createGroupCommit(() => {
      calls++;
      throw new Error('disk I/O error');
    }, { isFinal: () => true });
    const results = await Promise.allSettled([commit.write(batch([windowEvent()]), 1), commit.write(batch([windowEvent()]), 1)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
  });
});

describe('concurrent ingest', () => {
  let t: Awaited<ReturnType<typeof makeApp>>;
  beforeEach(async () => {
    t = await makeApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('stores every batch sent at once, sums their rollups exactly and recognises a repeated batch id among them', async () => {
    const start = minuteOf(Date.now() - 120_000) + 5_000;
    const w = () => windowEvent({
      start, end: start + 10_000, calls: 10, ok: 9, slow: 0, errors: { server: 1 }, retries: 0, cold_excluded: 0, rejected: 0,
      latency_ms: { bounds: [100], counts: [9, 1] }, ttft_ms: undefined,
    });
    const batches = Array.from({ length: 6 }, (_, i) => batch([w(), w()], { service: 'drafts', instance: `pod-${i % 3}` }));
    const post = (body: TelemetryBatch) =>
      t.app.inject({
        method: 'POST', url: '/v1/telemetry',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
        payload: JSON.stringify(body),
      });
    // Sent at once, they are written as one group: the repeat of the first id is in it too.
    const replies = await Promise.all([...batches, batches[0]!].map(post));
    expect(replies.map((r) => r.statusCode)).toEqual(Array(7).fill(200));
    expect(replies.filter((r) => r.json().duplicate)).toHaveLength(1);
    const row = t.app.db.prepare('SELECT calls, e_server, windows FROM key_minutes WHERE minute = ?').get(minuteOf(start));
    expect(row).toEqual({ calls: 120, e_server: 12, windows: 12 });
    const totals = t.app.db.prepare('SELECT SUM(calls) AS calls FROM key_totals').get();
    expect(totals).toEqual({ calls: 120 });
    const sources = t.app.db.prepare('SELECT COUNT(*) AS n, SUM(calls) AS calls FROM key_minute_sources WHERE minute = ?').get(minuteOf(start));
    expect(sources).toEqual({ n: 3, calls: 120 });
  });
});

/**
 * Two collectors on one PostgreSQL: a drill started through one reaches the feeds held by
 * the other (which reads new runs and stops from the database each poll), and the drill
 * batches its instances send through either are judged into one report by the leader.
 */
import { describe, expect, it } from 'vitest';
import { usePostgresCluster } from '../support/postgres-cluster.ts';
import { collector, type TestCollector } from '../verdicts/support.ts';
import { CORRECT, drillFeed, sendDrill, stepEvents } from './support.ts';

const postgres = usePostgresCluster();

/** The drill commands one collector's feed of `service` receives, over real HTTP. */
async function feed(c: TestCollector, service: string) {
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  const f = await drillFeed(`http://127.0.0.1:${(c.app.server.address() as { port: number }).port}`, c.token, service);
  postgres.defer(f.close);
  return f.drills;
}

describe.skipIf(!postgres.available)('drills on PostgreSQL', () => {
  it('a follower delivers a drill started through another collector, and its stop', async () => {
    const url = await postgres.database('drills');
    // No judging timer: the test judges itself, so it knows which run each pass wrote.
    const config = { drills: { grace_s: 0, check_interval_ms: 600_000 }, fleet: { poll_interval_ms: 100 } };
    const a = await collector({ env: { BREAKERBOX_DB: url }, config, tokenName: 'a' });
    postgres.defer(() => a.close());
    const b = await collector({ env: { BREAKERBOX_DB: url }, config, tokenName: 'b' });
    postgres.defer(() => b.close());
    const onB = await feed(b, 'drafts');

    // a refuses a drill nobody runs, naming the service whose feed b holds (b writes its feed counts to the database) ...
    const start = (service: string) => a.app.inject({ method: 'POST', url: '/api/drills', headers: { authorization: `Bearer ${a.token}` }, payload: { service, kinds: ['primary_down'], step_s: 600 } });
    await expect.poll(async () => (await start('nobody')).json().error.message, { timeout: 15_000 }).toContain('subscribed: "drafts" (1 feed)');
    // ... and starts one of that service, though a holds no feed of it.
    const started = await start('drafts');
    expect(started.statusCode, started.body).toBe(201);
    const run = started.json().run;
    await expect.poll(() => onB.length, { timeout: 15_000 }).toBe(1);
    expect(onB[0]).toEqual({ id: run.id, service: 'drafts', kinds: ['primary_down'], step_ms: 600_000, issued_at: run.issued_at });

    // The instance on b's feed sends its drill traffic (in its first 2 ms) through b; the run is stopped through a, which ends its span.
    const sent = await sendDrill(b, run.id, stepEvents(run.issued_at, 2, CORRECT.primary_down));
    expect(sent.statusCode, sent.body).toBe(200);
    expect((await a.app.inject({ method: 'POST', url: `/api/drills/${run.id}/stop`, headers: { authorization: `Bearer ${a.token}` } })).statusCode).toBe(200);
    await expect.poll(() => onB.length, { timeout: 15_000 }).toBe(2);
    expect(onB[1]).toMatchObject({ id: run.id, step_ms: 0 });

    // Whichever holds the lease judges; the other finds nothing left to judge.
    const judged = [...(await a.app.drills.judgeDue()), ...(await b.app.drills.judgeDue())];
    expect(judged.map((j) => j.id)).toEqual([run.id]);
    const report = (await b.get(`/api/drills/${run.id}`)).run.report;
    expect(report.drills[0]).toMatchObject({ kind: 'primary_down', outcome: 'pass', calls: 10 });
  });
});

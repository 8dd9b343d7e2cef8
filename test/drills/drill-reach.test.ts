/**
 * Drills refuse what cannot run: `POST /api/drills` for a service no instance has subscribed
 * for answers 404 naming it and the services that are (this collector's feeds and, written
 * to the database, any other collector's), unless `schedule_anyway`; `breakerbox drill run`
 * fails at once with the same message; and a run that reached no instance ends as soon as
 * no collector can send it any more, not after its drills and the grace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { drillCommand } from '../../server/drills/drill-cli.ts';
import { UNREACHED_BY } from '../../server/drills/drill-service.ts';
import { collector, type TestCollector } from '../verdicts/support.ts';
import { drillFeed } from './support.ts';

const T0 = Date.UTC(2026, 11, 3, 6, 0, 0);
/** The plugin's fresh window with fleet.poll_interval_ms 100: max(10 s, 5 polls). */
const FRESH_MS = 10_000;

let c: TestCollector;
let base: string;
const clock = manualClock(T0);
const feeds: { close(): void }[] = [];

async function subscribe(service: string) {
  const feed = await drillFeed(base, c.token, service);
  feeds.push(feed);
  await expect.poll(feed.isReady).toBe(true);
  return feed;
}
const start = (payload: object) => c.app.inject({ method: 'POST', url: '/api/drills', headers: { authorization: `Bearer ${c.token}` }, payload });

beforeAll(async () => {
  // No judging timer: the tests run the leader's pass themselves, at the times they choose.
  c = await collector({ clock, config: { drills: { grace_s: 30, check_interval_ms: 600_000 }, fleet: { poll_interval_ms: 100 } } });
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(c.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const f of feeds) f.close();
  await c?.close();
});

describe('a drill for a service nobody runs', () => {
  it('is refused with 404 naming the service and the services that are subscribed', async () => {
    const none = await start({ service: 'drafts', kinds: ['primary_down'], step_s: 60 });
    expect(none.statusCode).toBe(404);
    expect(none.json().error).toMatchObject({ code: 'BB_ERR_DRILL_NO_SUBSCRIBERS', path: '/body/service' });
    expect(none.json().error.message).toMatch(/no instance of service "drafts" is subscribed for drills.*no service is subscribed/);

    await subscribe('billing');
    await subscribe('billing');
    await subscribe('search');
    const other = await start({ service: 'drafts', kinds: ['primary_down'], step_s: 60 });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.message).toContain('subscribed: "billing" (2 feeds), "search" (1 feed)');
    expect(await c.app.storage.drills.listRuns('drafts', 10)).toEqual([]);
  });

  it('counts the feeds another collector of the database wrote, while they are fresh', async () => {
    await c.app.storage.drills.writeFeeds('collector-b', new Map([['remote', 3]]), clock.now());
    const refusal = await start({ service: 'nowhere', step_s: 60 });
    expect(refusal.json().error.message).toContain('"remote" (3 feeds)');
    const ok = await start({ service: 'remote', kinds: ['truncated'], step_s: 60 });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().sent_to).toBe(0);
    // A collector that stopped writing (a crash) no longer counts.
    await c.app.storage.drills.writeFeeds('collector-b', new Map([['remote2', 1]]), clock.now() - 60_000);
    expect((await start({ service: 'remote2', step_s: 60 })).statusCode).toBe(404);
  });

  it('is accepted with a feed of the service open', async () => {
    await subscribe('drafts');
    const ok = await start({ service: 'drafts', kinds: ['primary_down'], step_s: 60 });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().sent_to).toBe(1);
    expect(await c.app.storage.drills.delivered(ok.json().run.id)).toBe(1);
  });

  it('with schedule_anyway starts, and ends as inconclusive once it can reach nobody — not after its drills and the grace', async () => {
    const res = await start({ service: 'ghost', kinds: ['rate_limit', 'primary_down'], step_s: 600, schedule_anyway: true });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().sent_to).toBe(0);
    const run = res.json().run;

    // While fresh, a follower could still deliver it: not ended.
    clock.advance(FRESH_MS - 1);
    expect((await c.app.drills.judgeDue()).map((j) => j.id)).not.toContain(run.id);
    clock.advance(1);
    const judged = await c.app.drills.judgeDue();
    expect(judged.find((j) => j.id === run.id)?.report.outcome).toBe('inconclusive');
    const view = (await c.get(`/api/drills/${run.id}`)).run;
    expect(view).toMatchObject({ status: 'done', stopped_by: UNREACHED_BY, ends_at: run.issued_at + FRESH_MS });
    expect(view.ends_at).toBeLessThan(run.issued_at + 2 * 600_000);
  });

  it('a run that reached an instance is not ended early', async () => {
    const [drafts] = await c.app.storage.drills.listRuns('drafts', 1);
    clock.advance(FRESH_MS);
    await c.app.drills.judgeDue();
    expect((await c.get(`/api/drills/${drafts!.id}`)).run).toMatchObject({ status: 'running', stopped_at: null });
    await c.app.inject({ method: 'POST', url: `/api/drills/${drafts!.id}/stop`, headers: { authorization: `Bearer ${c.token}` } });
  });
});

describe('breakerbox drill run for a service nobody runs', () => {
  const io = () => {
    const lines: string[] = [];
    let slept = 0;
    return {
      lines,
      slept: () => slept,
      io: {
        out: (l: string) => lines.push(l),
        err: (l: string) => lines.push(l),
        // Each pause moves the collector's clock and runs the leader's pass, as its timer would.
        sleep: async (ms: number) => {
          slept += ms;
          clock.advance(ms);
          await c.app.drills.judgeDue();
        },
      },
    };
  };

  it('fails at once, exit 1, with the collector\'s message on one line', async () => {
    const out = io();
    const code = await drillCommand(['run', '--url', base, '--service', 'nobody', '--minutes', '10'], { BREAKERBOX_TOKEN: c.token }, out.io);
    expect(code).toBe(1);
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toMatch(/^breakerbox: the collector answered 404 BB_ERR_DRILL_NO_SUBSCRIBERS: no instance of service "nobody" is subscribed for drills.*"billing" \(2 feeds\)/);
    expect(out.slept()).toBe(0);
  });

  it('with --schedule-anyway exits 1 as soon as the run is known to have reached nobody', async () => {
    const out = io();
    const code = await drillCommand(['run', '--url', base, '--service', 'nobody', '--minutes', '10', '--schedule-anyway', '--poll-ms', '2000'], { BREAKERBOX_TOKEN: c.token }, out.io);
    expect(code, out.lines.join('\n')).toBe(1);
    expect(out.lines.join('\n')).toMatch(/outcome: INCONCLUSIVE/);
    // Six drills of ten minutes plus the grace would be 3630 s; it knew after the fresh window.
    expect(out.slept()).toBeLessThanOrEqual(FRESH_MS + 2_000);
  });
});

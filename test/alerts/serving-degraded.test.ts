/**
 * `serving_degraded` pages when an operation's tasks are answered from its low fallback levels
 * (3: the cheaper model, 4: a cached or templated answer) for a share of its tasks over hours
 * (docs/alerts.md, "serving_degraded"; defaults 20 % of at least 100 completed tasks over
 * 6 h). `tasks` events as the SDK reports them, one per minute, through the real ingest
 * endpoint into a collector on a hand-driven clock: six simulated hours take no wall time.
 * The paging and resolving cases run on SQLite and on PostgreSQL. Each quiet case runs beside
 * a control operation that does page, so every test fails without the rule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TasksEvent } from '@breakerbox/protocol';
import { ManualClock } from '../support/manual-clock.ts';
import { MIN, collector, type TestCollector } from '../verdicts/support.ts';
import { receiver } from './receiver.ts';
import { usePostgresCluster } from '../support/postgres-cluster.ts';

/** 09:00:05 UTC: the collector's clock, five seconds past the minute the replayed data ends at. */
const END = Date.parse('2026-12-03T09:00:05Z');
const HOUR = 60 * MIN;

let open: TestCollector[] = [];
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of open) await c.close();
  for (const close of closers) await close();
  open = [];
  closers = [];
});

async function fresh(clock = new ManualClock(END - 6 * HOUR), config?: Record<string, unknown>, db?: string) {
  const c = await collector({ clock, ...(config ? { config } : {}), ...(db ? { env: { BREAKERBOX_DB: db } } : {}) });
  open.push(c);
  return { c, clock };
}

type Levels = TasksEvent['levels'];

/** One `tasks` event per minute of `[from, to)` of `operation`, answered at `levels` (each minute's counts). */
function minutes(operation: string, from: number, to: number, levels: Levels | ((minute: number) => Levels | null)): TasksEvent[] {
  const out: TasksEvent[] = [];
  for (let start = from; start < to; start += MIN) {
    const l = typeof levels === 'function' ? levels(start) : levels;
    if (!l) continue;
    const completed = Object.values(l).reduce((a, b) => a + (b ?? 0), 0);
    const fallback = completed - (l['0'] ?? 0);
    out.push({
      type: 'tasks', start, end: start + 10_000, operation, completed, failed: 0, degraded: l['4'] ?? 0,
      attempts: completed + fallback, cost_usd: completed * 0.002, levels: l, fallback: { invoked: fallback, failed: 0 },
    });
  }
  return out;
}

async function alertOf(c: TestCollector, operation: string) {
  return (await c.get('/api/alerts')).alerts.find((a: any) => a.rule === 'serving_degraded' && a.operation === operation);
}

/**
 * One alert pass. On PostgreSQL only the lease holder evaluates, and its lease is confirmed on
 * the collector's clock: a clock moved on by hand needs a renewal first (SQLite's is always held).
 * A renewal already in flight when the clock moved was stamped before the move, and `tick()`
 * answers with it: poll until a renewal stamped after the move confirms the lease.
 */
async function evaluate(c: TestCollector) {
  await expect.poll(() => c.app.storage.lease.tick()).toBe(true);
  await c.app.alerts.evaluate();
}

const send = (c: TestCollector, events: TasksEvent[]) => c.send({ service: 'support-bot', instance: 'pod-1' }, events);

/** The primary's breaker keeps tripping: from 03:45 nine tasks in ten a minute are answered by the cheaper model (level 3). */
const cheapFallback = (m: number): Levels => (m < Date.parse('2026-12-03T03:45:00Z') ? { '0': 10 } : { '0': 1, '3': 9 });

const postgres = usePostgresCluster();
const ENGINES = [
  { engine: 'SQLite', skip: false, db: async () => undefined },
  { engine: 'PostgreSQL', skip: !postgres.available, db: () => postgres.database('serving') },
];

describe.each(ENGINES)('serving_degraded: an operation on its cheap fallback for most of 6 h ($engine)', ({ skip, db }) => {
  it.skipIf(skip)('pages as a warning on the first pass past 20 %, naming the operation, the levels and since when (the data onset)', async () => {
    const slack = await receiver(() => ({ status: 200, body: 'ok' }));
    closers.push(() => slack.close());
    // No repeat within the six passes: the one page is the first pass's.
    const { c, clock } = await fresh(undefined, { alerts: { repeat_interval_s: 86_400 }, notifiers: [{ name: 'slack', type: 'slack', url: `${slack.url}/hook`, retries: 0 }] }, await db());
    // An hour of data per pass, the collector's clock moving with it.
    const passes: { at: string; state: string | undefined }[] = [];
    for (let h = 1; h <= 6; h++) {
      const to = END - 5_000 - (6 - h) * HOUR;
      await clock.advance(to + 5_000 - clock.now());
      await send(c, minutes('answer-ticket', to - HOUR, to, cheapFallback));
      await evaluate(c);
      passes.push({ at: new Date(clock.now()).toISOString().slice(11, 16), state: (await alertOf(c, 'answer-ticket'))?.state });
      // The page is delivered before the clock moves on (its timeout runs on this clock).
      if (h === 1) await slack.waitFor(1);
    }
    // 04:00: 135 of 600 completed tasks (22.5 %) at level 3 — it fires on that pass.
    expect(passes).toEqual(['04:00', '05:00', '06:00', '07:00', '08:00', '09:00'].map((at) => ({ at, state: 'firing' })));
    const a = await alertOf(c, 'answer-ticket');
    expect(a).toMatchObject({
      state: 'firing', severity: 'warning', key: null, operation: 'answer-ticket', verdict: null,
      started_at: Date.parse('2026-12-03T03:46:00Z'), fired_at: Date.parse('2026-12-03T04:00:05Z'), value: 0.787,
    });
    // 45 minutes at level 0 (450 tasks), then 315 minutes of 9 at level 3 and 1 at level 0.
    expect(a.summary).toBe(
      'answer-ticket: served from levels 3–4 since 03:46:00 UTC — 2835 of 3600 completed tasks (79%) answered at levels 3–4 over the last 6 h (level 3: 2835, level 4: 0)',
    );
    // The page, as the 04:00 pass sent it: 135 of the first hour's 600 tasks.
    expect(slack.received.map((r) => r.body.text)).toEqual([
      '[FIRING] warning serving_degraded — operation answer-ticket: answer-ticket: served from levels 3–4 since 03:46:00 UTC — 135 of 600 completed tasks (23%) answered at levels 3–4 over the last 6 h (level 3: 135, level 4: 0)',
    ]);
  });

  it.skipIf(skip)('resolves once the operation has been back on levels 0–2 for resolve_s (15 min), while the 6 h share is still far above 20 %', async () => {
    const { c, clock } = await fresh(new ManualClock(END), undefined, await db());
    await send(c, minutes('answer-ticket', END - 5_000 - 6 * HOUR, END - 5_000, cheapFallback));
    await evaluate(c);
    expect(await alertOf(c, 'answer-ticket')).toMatchObject({ state: 'firing' });
    // The primary is back: every task at level 0 (or the level-1 region failover).
    const back: Levels = { '0': 9, '1': 1 };
    await clock.advance(10 * MIN);
    await send(c, minutes('answer-ticket', END - 5_000, END - 5_000 + 10 * MIN, back));
    await evaluate(c);
    const held = await alertOf(c, 'answer-ticket');
    expect(held).toMatchObject({ state: 'firing', resolved_at: null });
    expect(held.summary).toMatch(/^answer-ticket: back on levels 0–2 since 09:00:00 UTC — \d+ of 3600 completed tasks \(7\d%\) answered at levels 3–4/);
    await clock.advance(6 * MIN);
    await send(c, minutes('answer-ticket', END - 5_000 + 10 * MIN, END - 5_000 + 16 * MIN, back));
    await evaluate(c);
    const resolved = await alertOf(c, 'answer-ticket');
    expect(resolved).toMatchObject({ state: 'resolved', resolved_at: END + 16 * MIN });
    expect(resolved.value).toBeGreaterThan(0.6);
  });
});

describe('serving_degraded stays quiet', () => {
  it('at 10 % of tasks on level 3 over 6 h (a control operation at 25 % pages)', async () => {
    const { c } = await fresh(new ManualClock(END));
    await send(c, [
      ...minutes('summarise', END - 5_000 - 6 * HOUR, END - 5_000, { '0': 9, '3': 1 }),
      ...minutes('answer-ticket', END - 5_000 - 6 * HOUR, END - 5_000, { '0': 3, '3': 1 }),
    ]);
    await c.app.alerts.evaluate();
    expect(await alertOf(c, 'summarise')).toBeUndefined();
    expect(await alertOf(c, 'answer-ticket')).toMatchObject({ state: 'firing', value: 0.25 });
  });

  it('on a 30-minute burst of templated (level 4) answers, still going, that is under 20 % of 6 h (a 90-minute one pages)', async () => {
    const { c } = await fresh(new ManualClock(END));
    const burst = (length: number) => (m: number): Levels => (m >= END - 5_000 - length ? { '4': 10 } : { '0': 10 });
    await send(c, [
      ...minutes('summarise', END - 5_000 - 6 * HOUR, END - 5_000, burst(30 * MIN)),
      ...minutes('answer-ticket', END - 5_000 - 6 * HOUR, END - 5_000, burst(90 * MIN)),
    ]);
    await c.app.alerts.evaluate();
    expect(await alertOf(c, 'summarise')).toBeUndefined();
    const a = await alertOf(c, 'answer-ticket');
    expect(a).toMatchObject({ state: 'firing', value: 0.25, started_at: Date.parse('2026-12-03T07:31:00Z') });
    expect(a.summary).toContain('answer-ticket: served from levels 3–4 since 07:31:00 UTC — 900 of 3600 completed tasks (25%) answered at levels 3–4 over the last 6 h (level 3: 0, level 4: 900)');
  });

  it('with too few tasks: 99 completed in 6 h, every one at level 3 (100, min_tasks, pages)', async () => {
    const { c } = await fresh(new ManualClock(END));
    // A task every 3 minutes or so, minutes between them empty: the onset passes over them.
    const sparse = (n: number) => (m: number): Levels | null => ((END - 5_000 - m) / MIN % 3 === 1 && (END - 5_000 - m) / MIN <= 3 * n - 2 ? { '3': 1 } : null);
    const few = minutes('summarise', END - 5_000 - 6 * HOUR, END - 5_000, sparse(99));
    const enough = minutes('answer-ticket', END - 5_000 - 6 * HOUR, END - 5_000, sparse(100));
    expect([few.length, enough.length]).toEqual([99, 100]);
    await send(c, [...few, ...enough]);
    await c.app.alerts.evaluate();
    expect(await alertOf(c, 'summarise')).toBeUndefined();
    const a = await alertOf(c, 'answer-ticket');
    expect(a).toMatchObject({ state: 'firing', value: 1 });
    // The oldest of the 100 tasks is 298 minutes before 09:00: its minute's end is the onset.
    expect(a.summary).toContain('since 04:03:00 UTC — 100 of 100 completed tasks (100%)');
  });
});

/**
 * Drill traffic never pages the real on-call: a failing drill batch for a key that also
 * carries real, healthy traffic (and for a key only the drill used) leaves the real routes as
 * the real traffic alone makes them — /api/verdicts, /api/incidents, the alerts, /metrics
 * and /api/cost — while the drill's run holds every event it sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, collector, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { PRIMARY, sendDrill } from './support.ts';

const DRILL_ONLY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'drill-only-model' };
let c: TestCollector;

const tasks = (from: number, to: number, completed: number, failed: number, cost: number): TelemetryEvent[] => {
  const out: TelemetryEvent[] = [];
  for (let start = from; start + 10_000 <= to; start += 10_000) {
    out.push({ type: 'tasks', start, end: start + 10_000, operation: 'draft', key: PRIMARY, completed, failed, degraded: 0, attempts: completed + failed, cost_usd: cost, levels: { '0': completed }, fallback: { invoked: 0, failed: 0 } });
  }
  return out;
};

beforeAll(async () => {
  c = await collector();
});
afterAll(async () => {
  await c.close();
});

describe('drill traffic is kept apart', () => {
  it('leaves verdicts, incidents, alerts, /metrics and cost to the real traffic', async () => {
    const from = c.now - 10 * MIN;
    await c.send({ service: 'drafts', instance: 'pod-1' }, [
      transition(PRIMARY, from - MIN, null, 'closed', 'created'),
      ...windows(PRIMARY, from, c.now, { calls: 40, cost_usd: 0.04 }),
      ...tasks(from, c.now, 40, 0, 0.04),
    ]);
    const run = (await c.app.inject({ method: 'POST', url: '/api/drills', headers: { authorization: `Bearer ${c.token}` }, payload: { service: 'drafts', step_s: 600, schedule_anyway: true } })).json().run;
    const drillEvents: TelemetryEvent[] = [
      transition(PRIMARY, from + 1000, 'closed', 'open', 'error_rate'),
      ...windows(PRIMARY, from, c.now, { calls: 40, errors: { server: 40 }, cost_usd: 7 }),
      ...windows(DRILL_ONLY, from, c.now, { calls: 40, errors: { auth: 40 }, cost_usd: 7 }),
      ...tasks(from, c.now, 0, 40, 7),
    ];
    const res = await sendDrill(c, run.id, drillEvents);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ accepted: drillEvents.length, duplicate: false });
    const batches = await c.app.storage.drills.batches(run.id);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.events).toHaveLength(drillEvents.length);

    const verdicts = await c.get('/api/verdicts?window=15m');
    expect(JSON.stringify(verdicts)).not.toContain(DRILL_ONLY.model);
    const primary = verdicts.verdicts.find((v: { key: BreakerKey }) => v.key.model === PRIMARY.model);
    expect(primary.clients).toMatchObject({ calls: 40 * 60, failed: 0 });
    expect(primary.verdict).not.toMatch(/outage|suspected|self_inflicted/);

    expect((await c.get('/api/incidents?window=15m')).incidents).toEqual([]);
    await c.app.alerts.evaluate(c.app.clock.now());
    expect((await c.get('/api/alerts')).alerts).toEqual([]);

    const metrics = (await c.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${c.token}` } })).body;
    expect(metrics).not.toContain(DRILL_ONLY.model);
    expect(metrics).not.toMatch(/^breakerbox_failed_calls_total\{/m);
    expect(metrics).toMatch(/^breakerbox_calls_total\{[^}]*model="gpt-4o-mini"[^}]*\} 2400$/m);

    const cost = await c.get('/api/cost?window=15m');
    const draft = cost.operations.find((o: { operation: string }) => o.operation === 'draft');
    expect(draft).toMatchObject({ completed: 40 * 60, failed: 0 });
    expect(draft.cost_usd).toBeCloseTo(0.04 * 60, 6);
  });
});

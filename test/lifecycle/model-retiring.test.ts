/**
 * The retirement calendar on the collector's injected clock: the model_retiring rule's
 * warning → critical → retired-and-still-called timeline, the model_retired hint after the
 * date, and GET /api/lifecycle — weeks of calendar in milliseconds, through the real app.
 */
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { MIN, collector, windows, type TestCollector } from '../verdicts/support.ts';

const DAY = 86_400_000;
const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-2024-05-13' };
const OTHER = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1' };
const SHUTDOWN = '2026-03-01';
const SHUTDOWN_AT = Date.parse('2026-03-01T00:00:00Z');
const LIFECYCLE = {
  shipped_calendar: false,
  retirements: [{ provider: 'openai', model: 'gpt-4o-2024-*', shutdown: SHUTDOWN, successor: 'gpt-4.1', link: 'https://example.test/deprecations' }],
};

/** Five minutes of traffic just before the clock's now, from two services. */
async function traffic(c: TestCollector, now: number, errors: Record<string, number> = {}) {
  const from = now - now % MIN - 5 * MIN;
  await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, windows(KEY, from, from + 5 * MIN, { calls: 10, errors }));
  await c.send({ service: 'search', instance: 'pod-9' }, windows(KEY, from, from + 5 * MIN, { calls: 10, errors }));
  await c.send({ service: 'search', instance: 'pod-9' }, windows(OTHER, from, from + 5 * MIN, { calls: 10 }));
}

const retiring = async (c: TestCollector, state = 'firing') => (await c.get(`/api/alerts?state=${state}`)).alerts.filter((a: any) => a.rule === 'model_retiring');

describe('model_retiring on the injected clock', () => {
  it('warns 30 days out, turns critical 7 days out and while the retired model is still called, then resolves an hour after its last call', async () => {
    const clock = manualClock(SHUTDOWN_AT - 31 * DAY);
    const c = await collector({ clock, config: { lifecycle: LIFECYCLE } });
    try {
      // 31 days out: in use, but outside the warning window.
      await traffic(c, clock.now());
      await c.app.alerts.evaluate();
      expect(await retiring(c)).toEqual([]);

      // 29 days out: a warning naming both callers and the successor; the model without a date stays quiet.
      clock.set(SHUTDOWN_AT - 29 * DAY);
      await traffic(c, clock.now());
      await c.app.alerts.evaluate();
      let alerts = await retiring(c);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ key: KEY, severity: 'warning', state: 'firing' });
      expect(alerts[0].summary).toContain('retires on 2026-03-01, in 29 days');
      expect(alerts[0].summary).toContain('still called by search, ticket-drafts');
      expect(alerts[0].summary).toContain('successor: gpt-4.1');
      expect(alerts[0].value).toBeCloseTo(29, 5);

      // 6 days out: the same alert, now critical.
      clock.set(SHUTDOWN_AT - 6 * DAY);
      await traffic(c, clock.now());
      await c.app.alerts.evaluate();
      alerts = await retiring(c);
      expect(alerts.map((a: any) => [a.severity, a.id])).toEqual([['critical', alerts[0].id]]);

      // A day after the date, still called (and failing): critical, "retired and still called".
      clock.set(SHUTDOWN_AT + DAY);
      await traffic(c, clock.now(), { bad_request: 10 });
      await c.app.alerts.evaluate();
      alerts = await retiring(c);
      expect(alerts).toHaveLength(1);
      expect(alerts[0].severity).toBe('critical');
      expect(alerts[0].summary).toContain('retired on 2026-03-01 and is still called: 600 calls in the last 1 hour by search, ticket-drafts');

      // Still firing 50 minutes after the last call (retired_calls_s: an hour by default)…
      clock.set(SHUTDOWN_AT + DAY + 50 * MIN);
      await c.app.alerts.evaluate();
      expect((await retiring(c)).map((a: any) => a.severity)).toEqual(['critical']);
      // …and resolved once nobody called it for longer: the callers have migrated.
      clock.set(SHUTDOWN_AT + DAY + 70 * MIN);
      await c.app.alerts.evaluate();
      expect(await retiring(c)).toEqual([]);
      expect((await retiring(c, 'resolved')).map((a: any) => a.severity)).toEqual(['critical']);
    } finally {
      await c.close();
    }
  });

  it('stays quiet for a retired model nobody called since its date', async () => {
    const clock = manualClock(SHUTDOWN_AT - 2 * DAY);
    const c = await collector({ clock, config: { lifecycle: LIFECYCLE } });
    try {
      await traffic(c, clock.now());
      clock.set(SHUTDOWN_AT + DAY);
      await c.app.alerts.evaluate();
      expect(await retiring(c)).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe('the model_retired hint', () => {
  it('replaces client_errors for bad_request failures after the shutdown date, and only after', async () => {
    const clock = manualClock(SHUTDOWN_AT - DAY);
    const c = await collector({ clock, config: { lifecycle: LIFECYCLE } });
    try {
      // The day before: the same 404s read as our own bad requests.
      await traffic(c, clock.now(), { bad_request: 10 });
      let v = (await c.get('/api/verdicts?window=15m')).verdicts.find((x: any) => x.key.model === KEY.model);
      expect(v).toMatchObject({ verdict: 'self_inflicted', hint: 'client_errors' });

      clock.set(SHUTDOWN_AT + 60 * MIN);
      await traffic(c, clock.now(), { bad_request: 10 });
      v = (await c.get('/api/verdicts?window=15m')).verdicts.find((x: any) => x.key.model === KEY.model);
      expect(v).toMatchObject({ verdict: 'self_inflicted', hint: 'model_retired' });
      expect(v.evidence.join('\n')).toContain('hint model_retired: the model retired on 2026-03-01');
      expect(v.evidence.join('\n')).toContain('move to gpt-4.1');
    } finally {
      await c.close();
    }
  });

  it('leaves a retired model failing with provider-side classes to the provider verdicts', async () => {
    const clock = manualClock(SHUTDOWN_AT + DAY);
    const c = await collector({ clock, config: { lifecycle: LIFECYCLE } });
    try {
      await traffic(c, clock.now(), { server: 10 });
      const v = (await c.get('/api/verdicts?window=15m')).verdicts.find((x: any) => x.key.model === KEY.model);
      expect(v.hint).not.toBe('model_retired');
    } finally {
      await c.close();
    }
  });
});

describe('GET /api/lifecycle', () => {
  it('lists the models in use with calls and cost per day, services, date, days left and successor, soonest first', async () => {
    const clock = manualClock(SHUTDOWN_AT - 10 * DAY);
    const c = await collector({ clock, config: { lifecycle: LIFECYCLE } });
    try {
      await traffic(c, clock.now());
      const view = await c.get('/api/lifecycle');
      expect(view).toMatchObject({ days: 7, warning_days: 30, critical_days: 7, calendar: { configured: 1, shipped: 0 } });
      expect(view.models.map((m: any) => m.model)).toEqual([KEY.model, OTHER.model]);
      const [retiringModel, other] = view.models;
      // 2 services × 30 windows × 10 calls, at the fixture's $0.001 a call, over 7 days.
      expect(retiringModel).toMatchObject({
        provider: 'openai', keys: [KEY], calls: 600, services: ['search', 'ticket-drafts'], days_left: 10, status: 'warning',
        retirement: { shutdown: SHUTDOWN, shutdown_at: SHUTDOWN_AT, successor: 'gpt-4.1', matched: 'gpt-4o-2024-*', source: 'config', read_on: null },
      });
      expect(retiringModel.calls_per_day).toBeCloseTo(600 / 7, 2);
      expect(retiringModel.cost_per_day_usd).toBeCloseTo(0.6 / 7, 5);
      expect(other).toMatchObject({ model: 'gpt-4.1', retirement: null, days_left: null, status: 'no_date', services: ['search'] });

      const bad = await c.app.inject({ url: '/api/lifecycle?days=0', headers: { authorization: `Bearer ${c.token}` } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('BB_ERR_QUERY_INVALID');
    } finally {
      await c.close();
    }
  });
});

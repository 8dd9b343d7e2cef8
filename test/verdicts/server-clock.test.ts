/**
 * The collector on a hand-driven clock: ingest, verdict windows and alert evaluation all
 * read it, so an hour of incident replays in milliseconds, at a date nowhere near today.
 */
import { describe, expect, it } from 'vitest';
import { manualClock, scaledClock } from '../../server/clock.ts';
import { MIN, collector, probes, transition, windows } from './support.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' };
const START = Date.parse('2025-06-01T00:00:00Z');

describe('the server clock', () => {
  it('drives ingest, the default verdict window and alert evaluation', async () => {
    const clock = manualClock(START);
    const c = await collector({ clock });
    try {
      expect(c.now).toBe(START);
      const from = START - 15 * MIN;
      await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [
        transition(KEY, from - MIN, null, 'closed', 'created'),
        ...windows(KEY, from, START, { calls: 10, errors: { server: 6 } }),
        transition(KEY, START - 10 * MIN, 'closed', 'open'),
      ]);
      for (const location of ['eu-west', 'us-east']) {
        await c.send({ service: 'prober', instance: location }, probes(KEY, location, from, START, 'error', { error_class: 'server', status: 503 }));
      }
      // Events after the clock's now (plus the accepted skew) are refused, as they would be in real time.
      const future = await c.app.inject({
        method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${c.token}` },
        payload: { batch_id: 'future', source: { service: 's', instance: 'i' }, events: windows(KEY, START + 10 * MIN, START + 10 * MIN + 10_000, { calls: 1 }) },
      });
      expect(future.statusCode).toBe(400);

      const answer = await c.get('/api/verdicts');
      expect(answer.window).toEqual({ from: START - 15 * MIN, to: START });
      expect(answer.verdicts[0]).toMatchObject({ key: KEY, verdict: 'provider_outage' });
      expect((await c.app.alerts.evaluate()).firing).toBeGreaterThan(0);
      expect((await c.get('/api/alerts?state=firing')).alerts.map((a: any) => a.rule)).toContain('open_share');

      // An hour later, without waiting: the breaker has idled out and the key's alerts resolve;
      // the two prober locations, silent for that hour, are what still fires.
      clock.advance(60 * MIN);
      expect((await c.get('/api/verdicts')).window.to).toBe(START + 60 * MIN);
      await c.app.alerts.evaluate();
      const firing = (await c.get('/api/alerts?state=firing')).alerts;
      expect(firing.map((a: any) => [a.rule, a.location]).sort()).toEqual([['prober_silent', 'eu-west'], ['prober_silent', 'us-east']]);
    } finally {
      await c.close();
    }
  });

  it('runs a compressed clock faster than the wall clock from its start', () => {
    // Started "1 s of wall time ago" at 60×: at least a minute has passed on it.
    const clock = scaledClock(60, { origin: Date.now() - 1000, start: START });
    expect(clock.now()).toBeGreaterThanOrEqual(START + 60_000);
    expect(() => scaledClock(0)).toThrow(RangeError);
  });
});

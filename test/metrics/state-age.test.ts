import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { MIN, collector, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { promtoolCheckMetrics, sample, scrape } from './support.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const L = 'provider="openai",endpoint="chat",model="gpt-4o-mini",region=""';
const SOURCE = { service: 'ticket-drafts', instance: 'pod-1' };
// An hour: the alert timer (real time) never fires during the test; the manual clock crosses it.
const INTERVAL_S = 3600;

let c: TestCollector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function started(): Promise<{ c: TestCollector; clock: ReturnType<typeof manualClock> }> {
  const clock = manualClock(Date.parse('2026-11-30T12:00:30Z'));
  c = await collector({ clock, env: { BREAKERBOX_ALERT_INTERVAL_S: String(INTERVAL_S) } });
  await c.send(SOURCE, [transition(KEY, c.now - 10 * MIN, null, 'closed', 'created'), ...windows(KEY, c.now - 10 * MIN, c.now, { calls: 10 })]);
  return { c, clock };
}

describe('/metrics state gauges between alert passes', () => {
  it("shows the alert pass's states with their age while they are at most one alert interval old", async () => {
    const { c, clock } = await started();
    await c.app.alerts.evaluate();
    const judgedAt = clock.now();
    // The breaker opens after the pass: a scrape within the interval still shows the pass's states.
    clock.advance(20_000);
    await c.send(SOURCE, [transition(KEY, clock.now() - 1000, 'closed', 'open')]);
    const page = await scrape(c);
    expect(promtoolCheckMetrics(page)).toBe('');
    expect(sample(page, 'breakerbox_breaker_instances', `${L},state="open"`)).toBe(0);
    expect(sample(page, 'breakerbox_breaker_instances', `${L},state="closed"`)).toBe(1);
    expect(sample(page, 'breakerbox_metrics_state_age_seconds', '')).toBe((clock.now() - judgedAt) / 1000);
  });

  it('judges every key again once the kept states are older than one alert interval', async () => {
    const { c, clock } = await started();
    await c.app.alerts.evaluate();
    clock.advance(INTERVAL_S * 1000 + 1000);
    const now = clock.now();
    await c.send(SOURCE, [...windows(KEY, now - 5 * MIN, now - 1000, { calls: 10 }), transition(KEY, now - 1000, 'closed', 'open')]);
    const page = await scrape(c);
    expect(sample(page, 'breakerbox_breaker_instances', `${L},state="open"`)).toBe(1);
    expect(sample(page, 'breakerbox_metrics_state_age_seconds', '')).toBe(0);
  });

  it('reuses the previous scrape within the interval (a Prometheus pair scraping together)', async () => {
    const { c, clock } = await started();
    const first = await scrape(c);
    expect(sample(first, 'breakerbox_metrics_state_age_seconds', '')).toBe(0);
    clock.advance(5_000);
    await c.send(SOURCE, [transition(KEY, clock.now() - 1000, 'closed', 'open')]);
    const second = await scrape(c);
    expect(sample(second, 'breakerbox_metrics_state_age_seconds', '')).toBe(5);
    expect(sample(second, 'breakerbox_breaker_instances', `${L},state="open"`)).toBe(0);
  });

  it('never reuses states with the alert timer off (alerts.interval_s 0)', async () => {
    const clock = manualClock(Date.parse('2026-11-30T12:00:30Z'));
    c = await collector({ clock });
    await c.send(SOURCE, [transition(KEY, c.now - 10 * MIN, null, 'closed', 'created'), ...windows(KEY, c.now - 10 * MIN, c.now, { calls: 10 })]);
    await scrape(c);
    clock.advance(1000);
    await c.send(SOURCE, [transition(KEY, clock.now() - 500, 'closed', 'open')]);
    const page = await scrape(c);
    expect(sample(page, 'breakerbox_metrics_state_age_seconds', '')).toBe(0);
    expect(sample(page, 'breakerbox_breaker_instances', `${L},state="open"`)).toBe(1);
  });
});

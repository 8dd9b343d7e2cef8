import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { MIN, collector, windows, type TestCollector } from './support.ts';
import { hourPlanOf } from '../support/sql.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini:2024-07-18' };
const HOUR = 60 * MIN;

let c: TestCollector;
let hourStart: number;

const calls24h = async () => (await c.get(`/api/verdicts?window=24h&to=${c.now}`)).verdicts[0].clients.calls;

beforeAll(async () => {
  c = await collector();
  hourStart = c.now - (c.now % HOUR) - 3 * HOUR;
  await c.send({ service: 'drafts', instance: 'pod-1' }, windows(KEY, hourStart, hourStart + 2 * HOUR, { calls: 1 }));
});
afterAll(() => c.close());

describe('hourly aggregates of the rollups', () => {
  it('answers a long window the same from hours as from minutes', async () => {
    const fromMinutes = await calls24h();
    expect(fromMinutes).toBe(720);
    const { built } = await c.app.storage.rollups.warmHours(24 * HOUR, c.app.clock.now());
    expect(built).toBeGreaterThan(0);
    const plan = hourPlanOf(c.app).plan(c.now - 24 * HOUR - ((c.now - 24 * HOUR) % MIN), c.now);
    expect(plan.some((s) => s.table === 'hours' && s.from <= hourStart && s.to >= hourStart + 2 * HOUR)).toBe(true);
    expect(await calls24h()).toBe(fromMinutes);
  });

  it('reads an hour from its minutes again as soon as late data arrives for it, until it is rebuilt', async () => {
    await c.send({ service: 'drafts', instance: 'pod-2' }, windows(KEY, hourStart + 10 * MIN, hourStart + 11 * MIN, { calls: 5 }));
    const plan = hourPlanOf(c.app).plan(hourStart - 3 * HOUR, c.now);
    expect(plan.find((s) => s.from <= hourStart && hourStart < s.to)?.table).toBe('minutes');
    expect(await calls24h()).toBe(750);
    expect((await c.app.storage.rollups.warmHours(24 * HOUR, c.app.clock.now())).built).toBe(1);
    expect(hourPlanOf(c.app).plan(hourStart - 3 * HOUR, c.now).find((s) => s.from <= hourStart && hourStart < s.to)?.table).toBe('hours');
    const v = (await c.get(`/api/verdicts?window=24h&to=${c.now}`)).verdicts[0];
    expect(v.clients).toMatchObject({ calls: 750, instances: 2 });
  });
});

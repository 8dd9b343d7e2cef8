/** Fallback attribution end to end: the SDK's task counters name the chain's primary key and the collector reads it. */
import { describe, expect, it } from 'vitest';
import { TaskStats } from '../../sdk/telemetry/task-stats.ts';
import { collector, MIN, transition, windows } from './support.ts';

const PRIMARY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06:primary' };
const OTHER = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const outcome = { ok: false, degraded: false, attempts: 2, costUsd: 0.01, fallbackInvoked: true, fallbackFailed: true };

describe('tasks carry their primary key', () => {
  it('names the key when every task of the interval had the same primary, and none when they differ', () => {
    const stats = new TaskStats('draft', 0);
    stats.record({ ...outcome, primaryKey: PRIMARY });
    stats.record({ ...outcome, primaryKey: { ...PRIMARY } });
    expect(stats.drain(10_000)).toMatchObject({ operation: 'draft', key: PRIMARY, fallback: { invoked: 2, failed: 2 } });
    stats.record({ ...outcome, primaryKey: PRIMARY });
    stats.record({ ...outcome, primaryKey: OTHER });
    expect(stats.drain(20_000)).not.toHaveProperty('key');
    stats.record(outcome);
    expect(stats.drain(30_000)).not.toHaveProperty('key');
  });

  it('is accepted by ingest and attributes the fallback failures to that key only', async () => {
    const c = await collector();
    try {
      const from = c.now - 5 * MIN;
      const stats = new TaskStats('draft', from);
      for (let i = 0; i < 3; i++) stats.record({ ...outcome, primaryKey: PRIMARY });
      const tasks = stats.drain(from + MIN)!;
      const events = [PRIMARY, OTHER].flatMap((key) => [
        transition(key, from - MIN, null, 'closed', 'created'),
        ...windows(key, from, c.now, { calls: 10, errors: { server: 5 } }),
        transition(key, from + 2 * MIN, 'closed', 'open'),
      ]);
      await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [...events, tasks]);
      const { verdicts } = await c.get(`/api/verdicts?from=${from}&to=${c.now}`);
      const fallbackOf = (model: string) => verdicts.find((v: any) => v.key.model === model).clients.fallback;
      expect(fallbackOf(PRIMARY.model)).toEqual({ invoked: 3, failed: 3 });
      expect(fallbackOf(OTHER.model)).toEqual({ invoked: 0, failed: 0 });
    } finally {
      await c.close();
    }
  });
});

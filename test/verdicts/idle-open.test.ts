import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN, collector, probes, transition, windows, type TestCollector } from './support.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1-mini:2025-04-14' };
let c: TestCollector;

beforeAll(async () => {
  c = await collector();
  const from = c.now - 60 * MIN;
  // pod-1's breaker opened 40 minutes ago; the app then stopped calling the model, so
  // pod-1 stopped reporting the key 38 minutes ago while its breaker stayed open.
  await c.send({ service: 'drafts', instance: 'pod-1' }, [
    transition(KEY, from, null, 'closed', 'created'),
    ...windows(KEY, from, c.now - 40 * MIN, { calls: 10 }),
    transition(KEY, c.now - 40 * MIN, 'closed', 'open'),
    ...windows(KEY, c.now - 40 * MIN, c.now - 38 * MIN, { calls: 5, short_circuited: 5 }),
  ]);
  await c.send({ service: 'drafts', instance: 'pod-2' }, [
    transition(KEY, from, null, 'closed', 'created'),
    ...windows(KEY, from, c.now, { calls: 10 }),
  ]);
  await c.send({ service: 'prober', instance: 'eu' }, probes(KEY, 'eu-west', from, c.now, 'ok'));
});
afterAll(() => c.close());

const verdictOver = async (minutes: number) => {
  const answer = await c.get(`/api/verdicts?from=${c.now - minutes * MIN}&to=${c.now}`);
  return answer.verdicts[0];
};

describe('an open breaker that stopped reporting', () => {
  it('counts as open only for a few minutes after its last report', async () => {
    const v = await verdictOver(60);
    // Open from -40 to 5 minutes after its last report (-38 min): about 7 of ~82 instance-minutes.
    expect(v.clients.open_share).toBeGreaterThan(0.05);
    expect(v.clients.open_share).toBeLessThan(0.15);
  });

  it('no longer makes the key degraded once that time is past, so its alerts can resolve', async () => {
    const v = await verdictOver(15);
    expect(v.clients.open_share).toBe(0);
    expect(v.verdict).toBe('healthy');
  });

  it('still shows the breaker state the instance last reported', async () => {
    const keys = await c.get('/api/keys?window=15m');
    const entry = keys.keys.find((k: { key: { model: string } }) => k.key.model === KEY.model);
    expect(JSON.stringify(entry.state)).toContain('open');
  });
});

/**
 * The key detail's `fallbacks`: each declared fallback's recent success and the largest
 * share of the primary's volume it has carried, from the windows both keys reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, windows, type TestCollector } from './support.ts';

const PRIMARY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const EXERCISED: BreakerKey = { provider: 'azure-openai', endpoint: 'chat', model: 'gpt-4o', region: 'eu' };
const UNTESTED: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' };

let c: TestCollector;
const at = (m: number) => c.now - 60 * MIN + m * MIN;

beforeAll(async () => {
  c = await collector();
  await c.send({ service: 'drafts', instance: 'pod-1' }, [
    { type: 'config', ts: at(1), key: PRIMARY, settings: {}, fallbacks: [EXERCISED, UNTESTED], warnings: [] },
    // Normal traffic: the primary serves 60 requests a minute, the exercised fallback 3 of its own (5%).
    ...windows(PRIMARY, at(10), at(40), { calls: 10 }),
    ...windows(EXERCISED, at(10), at(40), { calls: 1 }, 20_000),
    // An incident: the primary refuses everything while open; the fallback carries it all, with 2 failures a window.
    ...windows(PRIMARY, at(40), at(42), { calls: 0, short_circuited: 10 }),
    ...windows(EXERCISED, at(40), at(42), { calls: 10, errors: { server: 2 } }),
  ]);
});
afterAll(() => c.close());

describe('GET /api/key: fallbacks', () => {
  it('shows each fallback with its recent success and the largest share of the primary it carried', async () => {
    const d = await c.get(`/api/key?${keyQuery(PRIMARY)}&window=1h&to=${c.now}`);
    expect(d.fallbacks).toHaveLength(2);
    const [exercised, untested] = d.fallbacks;
    expect(exercised.key).toEqual(EXERCISED);
    // 30 min × 3 + 2 min × 60 requests; 24 failures in the incident.
    expect(exercised).toMatchObject({ calls: 90 + 120, ok: 90 + 96, max_share_of_primary: 1, max_share_at: at(40) });
    expect(exercised.success_share).toBeCloseTo(186 / 210, 4);
    expect(untested).toEqual({ key: UNTESTED, calls: 0, ok: 0, success_share: null, max_share_of_primary: null, max_share_at: null });
  });

  it('reports the share carried in normal times when there was no incident', async () => {
    const d = await c.get(`/api/key?${keyQuery(PRIMARY)}&window=1h&to=${at(40)}`);
    expect(d.fallbacks[0].max_share_of_primary).toBeCloseTo(3 / 60, 4);
  });
});

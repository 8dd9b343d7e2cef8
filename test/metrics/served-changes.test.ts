/**
 * `breakerbox_served_model_changes_total` (docs/metrics.md): the served-model changes the
 * collector derives, counted scrape by scrape from the sightings since the previous scrape, on
 * the server clock — from 0 at the first scrape, per provider and model, in event-time order
 * once settled, a late sighting past the settle time left out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { manualClock } from '../../server/clock.ts';
import { SETTLE_MS } from '../../server/metrics/served-change-counter.ts';
import { MIN, collector, type TestCollector } from '../verdicts/support.ts';
import { promtoolCheckMetrics, sample, scrape } from './support.ts';

const START = Date.parse('2026-12-01T12:00:00Z');
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
/** The same model in another region: counted under the same provider and model. */
const KEY_EU: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o', region: 'eu' };
const OTHER: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4-5' };

let c: TestCollector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const probe = (key: BreakerKey, ts: number, fingerprint: string | undefined, model = key.model, location = 'eu-west'): ProbeEvent => ({
  type: 'probe', ts, key, location, outcome: 'ok', latency_ms: { total: 300 }, model_served: model, ...(fingerprint ? { system_fingerprint: fingerprint } : {}),
});
const count = (page: string, key: BreakerKey) => sample(page, 'breakerbox_served_model_changes_total', `provider="${key.provider}",model="${key.model}"`);

describe('breakerbox_served_model_changes_total', () => {
  it('counts the changes that settled since the first scrape, per provider and model, and leaves out a sighting arriving past the settle time', async () => {
    const clock = manualClock(START);
    c = await collector({ clock });
    // Before the first scrape: fp_a in force (read as the version before, never counted).
    await c.send({ service: 'probe', instance: 'eu-west' }, [probe(KEY, START - 30 * MIN, 'fp_a'), probe(OTHER, START - 30 * MIN, undefined)]);
    const first = await scrape(c);
    expect(promtoolCheckMetrics(first)).toBe('');
    expect(first).toContain('# TYPE breakerbox_served_model_changes_total counter');
    expect([count(first, KEY), count(first, OTHER)]).toEqual([0, 0]);

    // fp_a → fp_b at +2 min (the +1 min fp_a is no change), seen again at +3 min; the eu key flips twice; the other model's name changes once.
    clock.set(START + 5 * MIN);
    await c.send({ service: 'probe', instance: 'eu-west' }, [
      probe(KEY, START + 1 * MIN, 'fp_a'), probe(KEY, START + 2 * MIN, 'fp_b'), probe(KEY, START + 3 * MIN, 'fp_b'),
      probe(KEY_EU, START + 1 * MIN, 'fp_x'), probe(KEY_EU, START + 2 * MIN, 'fp_y'), probe(KEY_EU, START + 4 * MIN, 'fp_x'),
      probe(OTHER, START + 2 * MIN, undefined, 'claude-sonnet-4-5-20250929'),
    ]);
    // Not settled yet: the counter reads only up to now − SETTLE_MS.
    expect(count(await scrape(c), KEY)).toBe(0);
    clock.set(START + SETTLE_MS + 90_000);
    expect(count(await scrape(c), KEY)).toBe(0);
    clock.set(START + 5 * MIN + SETTLE_MS);
    const settled = await scrape(c);
    expect([count(settled, KEY), count(settled, OTHER)]).toEqual([3, 1]);

    // A sighting of +3.5 min arriving now, after the counter read past it: left out (the key's served_changes shows it).
    clock.set(START + 11 * MIN);
    await c.send({ service: 'probe', instance: 'us-east' }, [probe(KEY, START + 3.5 * 60_000, 'fp_c', KEY.model, 'us-east')]);
    await c.send({ service: 'probe', instance: 'eu-west' }, [probe(KEY, START + 10 * MIN, 'fp_d')]);
    clock.set(START + 11 * MIN + SETTLE_MS);
    const later = await scrape(c);
    // fp_b → fp_d at +10 min: one more.
    expect(count(later, KEY)).toBe(4);
    expect(count(later, OTHER)).toBe(1);
  });
});

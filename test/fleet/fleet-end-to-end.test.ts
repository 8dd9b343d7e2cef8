/**
 * The loop closed: a real collector (fastify, SQLite file, real HTTP) and a real SDK
 * instance subscribed to it. On-call drains a key through the CLI's API path; the instance
 * opens that breaker (reason fleet_drain), calls go to the fallback, the transition reaches
 * the collector, the key page counts the instance, and a release sends it to half-open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { collector, keyQuery, type TestCollector } from '../verdicts/support.ts';
import { createBreakerbox, type Breakerbox } from '../../sdk/index.ts';
import { fleetCommand } from '../../server/fleet/fleet-cli.ts';

const PRIMARY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:free@v2', region: 'us-east' };
const FALLBACK: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };

let c: TestCollector;
let url: string;
let bb: Breakerbox;

beforeAll(async () => {
  c = await collector();
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(c.app.server.address() as { port: number }).port}`;
  bb = createBreakerbox({ telemetry: { url, token: c.token, service: 'drafts', instance: 'pod-1', coalesceMs: 10 }, fleet: true });
  bb.declareFallbacks({ key: PRIMARY }, [{ key: FALLBACK }]);
});
afterAll(async () => {
  await bb.close(500);
  await c.close();
});

describe('fleet feed, collector to SDK', () => {
  it('applies a drain made with the CLI through the admin API, reports it, and leaves it on release', async () => {
    await expect.poll(() => bb.fleetStats()?.state, { timeout: 15_000 }).toBe('open');
    const key = JSON.stringify(PRIMARY);
    expect(await fleetCommand(['drain', '--url', url, '--token', c.token, '--key', key, '--reason', 'wrong answers, INC-7', '--expires', '1h'], {})).toBe(0);
    await expect.poll(() => bb.policy(PRIMARY).breaker.state.name, { timeout: 15_000 }).toBe('forced_open');
    const op = bb.operation({ name: 'draft', levels: [{ key: PRIMARY, run: async () => 'primary' }, { key: FALLBACK, run: async () => 'fallback' }] });
    expect((await op.run(undefined)).value).toBe('fallback');

    await bb.flush(5_000);
    await expect.poll(async () => (await c.get(`/api/fleet?${keyQuery(PRIMARY)}`)).decisions[0]?.applied_instances, { timeout: 15_000 }).toBe(1);

    expect(await fleetCommand(['release', '--url', url, '--token', c.token, '--key', key, '--reason', 'fixed'], {})).toBe(0);
    await expect.poll(() => bb.policy(PRIMARY).breaker.state.name, { timeout: 15_000 }).toBe('half_open');
    expect(bb.fleetStats()).toMatchObject({ applied: 2 });

    // /metrics counts what this collector sent and what the instance reported applying.
    await bb.flush(5_000);
    const metrics = async () => (await c.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${c.token}` } })).body;
    await expect.poll(metrics, { timeout: 15_000 }).toMatch(/^breakerbox_fleet_decisions_reported_total\{outcome="applied"\} 2$/m);
    const page = await metrics();
    // Renewals are counted too (a slow run sees a decision renewed before the test reads the page).
    expect(page).toMatch(/^breakerbox_fleet_decisions_sent_total\{kind="drain"\} [1-9]/m);
    expect(page).toMatch(/^breakerbox_fleet_decisions_sent_total\{kind="release"\} [1-9]/m);
    expect(page).toMatch(/^breakerbox_fleet_subscribers 1$/m);
  });
});

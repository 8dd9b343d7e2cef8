import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const ODD: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:free@2024', region: 'us-east' };
const QUOTED: BreakerKey = { provider: 'openai-compatible', endpoint: 'chat', model: 'weird"model\\v1' };

let c: TestCollector;
let page: string;

beforeAll(async () => {
  c = await collector();
  const from = c.now - 10 * MIN;
  await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [
    transition(ODD, from - MIN, null, 'closed', 'created'),
    ...windows(ODD, from, c.now, { calls: 10, errors: { server: 2, auth: 1 }, slow: 1, retries: 3, rejected: 1, half_open: { ok: 1, failed: 1 } }),
    ...windows(QUOTED, from, c.now, { calls: 5 }),
    transition(ODD, c.now - 4 * MIN, 'closed', 'open'),
    {
      type: 'tasks', start: c.now - 2 * MIN, end: c.now - MIN, operation: 'draft-reply', completed: 40, failed: 2, degraded: 1, attempts: 50,
      cost_usd: 0.8, levels: { '0': 36, '1': 4, '4': 1 }, fallback: { invoked: 5, failed: 2 },
    },
  ]);
  await c.send({ service: 'prober', instance: 'eu' }, probes(ODD, 'eu-west', from, c.now, 'error', { error_class: 'server', status: 503 }));
  await c.send({ service: 'prober', instance: 'us' }, probes(ODD, 'us-east', from, c.now, 'ok'));
  const res = await c.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${c.token}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  page = res.body;
});
afterAll(() => c.close());

const labels = 'provider="together",endpoint="chat",model="meta-llama/Llama-3.3-70B-Instruct-Turbo:free@2024",region="us-east"';

describe('GET /metrics', () => {
  it('passes promtool check metrics', () => {
    const run = spawnSync('promtool', ['check', 'metrics'], { input: page, encoding: 'utf8' });
    if (run.error) throw new Error('promtool is not installed (Debian package "prometheus"): /metrics cannot be checked');
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });

  it('exports the derived numbers per key with model ids intact', () => {
    expect(page).toContain(`breakerbox_key_calls{${labels}} 600`);
    expect(page).toContain(`breakerbox_key_error_ratio{${labels},class="server"} 0.2`);
    expect(page).toContain(`breakerbox_key_bulkhead_rejections{${labels}} 60`);
    expect(page).toContain(`breakerbox_key_half_open_success_ratio{${labels}} 0.5`);
    expect(page).toContain(`breakerbox_key_open_instances{${labels}} 1`);
    expect(page).toContain(`breakerbox_key_fallback_failures{${labels}} 2`);
    // Open for the last 4 of ~11 reported minutes; /metrics ends at the wall clock, a little after the data.
    const open = Number(new RegExp(`breakerbox_key_open_ratio\\{[^}]*Turbo:free@2024[^}]*\\} ([0-9.]+)`).exec(page)?.[1]);
    expect(open).toBeGreaterThan(0.33);
    expect(open).toBeLessThan(0.47);
    expect(page).toContain(`breakerbox_key_latency_seconds{${labels},percentile="95"} `);
    expect(page).toContain(`breakerbox_key_service_calls{${labels},service="ticket-drafts"} 600`);
  });

  it('exports the verdict as a 0/1 gauge per value and probes per location', () => {
    expect(page).toContain(`breakerbox_key_verdict{${labels},verdict="provider_outage"} 1`);
    expect(page).toContain(`breakerbox_key_verdict{${labels},verdict="healthy"} 0`);
    expect(page).toContain(`breakerbox_probe_success_ratio{${labels},location="eu-west"} 0`);
    expect(page).toContain(`breakerbox_probe_success_ratio{${labels},location="us-east"} 1`);
    expect(page).toContain('breakerbox_operation_cost_per_success_usd{operation="draft-reply"} 0.02');
  });

  it('escapes quotes and backslashes in label values', () => {
    expect(page).toContain('breakerbox_key_calls{provider="openai-compatible",endpoint="chat",model="weird\\"model\\\\v1",region=""} 300');
  });

  it('needs a read token unless configured open', async () => {
    expect((await c.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const open = await collector({ config: { metrics: { open: true } } });
    try {
      expect((await open.app.inject({ url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});

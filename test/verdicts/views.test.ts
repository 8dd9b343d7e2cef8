import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, TasksEvent } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, probes, transition, windows, type TestCollector } from './support.ts';

const KEY: BreakerKey = { provider: 'openai-compatible', endpoint: 'chat', model: 'org/model:v2@2024-08-01', region: 'eu-west' };
const NO_REGION: BreakerKey = { provider: 'openai-compatible', endpoint: 'chat', model: 'org/model:v2@2024-08-01' };

let c: TestCollector;
const at = (m: number) => c.now - 60 * MIN + m * MIN;

function tasks(start: number, completed: number, costPerTask: number, levels: TasksEvent['levels'], fallback = { invoked: 0, failed: 0 }): TasksEvent {
  return { type: 'tasks', start, end: start + 10_000, operation: 'draft-reply', completed, failed: 1, degraded: levels['4'] ?? 0, attempts: completed + 2, cost_usd: completed * costPerTask, levels, fallback };
}

beforeAll(async () => {
  c = await collector();
  for (const [service, instance] of [['drafts', 'pod-1'], ['drafts', 'pod-2'], ['summaries', 'pod-9']] as const) {
    await c.send({ service, instance }, [
      transition(KEY, at(29), null, 'closed', 'created'),
      ...windows(KEY, at(30), at(45), { calls: 10 }),
      ...windows(KEY, at(45), at(60), { calls: 10, errors: { server: 5 } }),
      ...(instance === 'pod-1' ? [transition(KEY, at(50), 'closed', 'open'), transition(KEY, at(52), 'open', 'half_open', 'cooldown_elapsed')] : []),
    ]);
  }
  await c.send({ service: 'drafts', instance: 'pod-1' }, [
    { type: 'config', ts: at(29), key: KEY, settings: { latency_ceiling_ms: 8000, max_concurrent: 16 }, fallbacks: [NO_REGION], warnings: ['fallback shares the provider'] },
    ...[0, 1, 2].map((i) => tasks(c.now - 3 * 60 * MIN + i * MIN, 100, 0.01, { '0': 100 })),
    ...[0, 1, 2].map((i) => tasks(at(50 + i), 100, 0.03, { '0': 80, '1': 15, '4': 5 }, { invoked: 20, failed: 3 })),
  ]);
  await c.send({ service: 'prober', instance: 'eu' }, [
    ...probes(KEY, 'eu-west', at(30), at(45), 'ok'),
    ...probes(KEY, 'eu-west', at(45), at(60), 'error', { error_class: 'server', status: 502 }),
  ]);
  await c.send({ service: 'prober', instance: 'us' }, [
    ...probes(KEY, 'us-east', at(30), at(45), 'ok'),
    ...probes(KEY, 'us-east', at(45), at(60), 'error', { error_class: 'timeout' }),
  ]);
});
afterAll(() => c.close());

describe('GET /api/key', () => {
  it('takes the key as query parameters and round-trips / : @ in the model id', async () => {
    const d = await c.get(`/api/key?${keyQuery(KEY)}&window=1h&to=${c.now}`);
    expect(d.key).toEqual(KEY);
    expect(d.window).toEqual({ from: c.now - 60 * MIN, to: c.now });
    expect([d.verdict, d.hint]).toEqual(['provider_outage', null]);
    expect(d.state).toMatchObject({ summary: 'half_open', half_open: 1, instances: 3 });
  });

  it('answers 404 for a key that never reported, including the same model without its region', async () => {
    const res = await c.app.inject({ url: `/api/key?${keyQuery(NO_REGION)}`, headers: { authorization: `Bearer ${c.token}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('BB_ERR_QUERY_NOT_FOUND');
  });

  it('returns per-minute series with the verdict over time', async () => {
    const d = await c.get(`/api/key?${keyQuery(KEY)}&window=1h&to=${c.now}`);
    expect(d.step_ms).toBe(MIN);
    expect(d.series).toHaveLength(60);
    const point = (m: number) => d.series.find((p: any) => p.t === at(m));
    expect(point(10)).toMatchObject({ calls: 0, error_share: null, verdict: 'insufficient_data', hint: 'low_volume' });
    expect(point(40)).toMatchObject({ calls: 180, failed: 0, verdict: 'healthy' });
    expect(point(55)).toMatchObject({ calls: 180, failed: 90, errors: { server: 90 }, error_share: 0.5, verdict: 'provider_outage' });
    expect(point(50).opens).toBe(1);
    expect(point(50).open_share).toBeCloseTo(1 / 3, 4);
    expect(point(52).open_share).toBeCloseTo(1 / 3, 4);
    expect(point(55).fallback_failed).toBe(0);
    expect(point(50)).toMatchObject({ fallback_invoked: 20, fallback_failed: 3 });
    expect(d.probe_series['eu-west'].find((p: any) => p.t === at(40))).toMatchObject({ probes: 1, ok: 1, success_share: 1 });
    expect(d.probe_series['us-east'].find((p: any) => p.t === at(50))).toMatchObject({ probes: 1, ok: 0, failed: 1, success_share: 0 });
  });

  it('lists the services and instances reporting the key, its config and its transitions', async () => {
    const d = await c.get(`/api/key?${keyQuery(KEY)}&window=1h&to=${c.now}`);
    expect(d.services.map((s: any) => [s.service, s.instances, s.calls])).toEqual(
      expect.arrayContaining([['drafts', 2, 3600], ['summaries', 1, 1800]]),
    );
    expect(d.instances.map((i: any) => `${i.service}/${i.instance}:${i.state}`)).toEqual(['drafts/pod-1:half_open', 'drafts/pod-2:closed', 'summaries/pod-9:closed']);
    expect(d.instances[0]).toMatchObject({ calls: 1800, failed: 450, error_share: 0.25, degraded: true });
    expect(d.config).toMatchObject({ service: 'drafts', instance: 'pod-1', settings: { latency_ceiling_ms: 8000 }, fallbacks: [NO_REGION], warnings: ['fallback shares the provider'] });
    expect(d.transitions.slice(0, 2).map((t: any) => `${t.from}->${t.to}`)).toEqual(['open->half_open', 'closed->open']);
  });

  it('picks a coarser step for long windows and refuses one that makes too many points', async () => {
    expect((await c.get(`/api/key?${keyQuery(KEY)}&window=24h`)).step_ms).toBe(5 * MIN);
    const res = await c.app.inject({ url: `/api/key?${keyQuery(KEY)}&window=7d&step=60000`, headers: { authorization: `Bearer ${c.token}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.path).toBe('/querystring/step');
  });
});

describe('GET /api/cost', () => {
  it('gives cost per successful task per operation against its trailing 24 h baseline, with level shares', async () => {
    const answer = await c.get(`/api/cost?window=1h&to=${c.now}&step=${10 * MIN}`);
    const op = answer.operations.find((o: any) => o.operation === 'draft-reply');
    expect(op).toMatchObject({ completed: 300, cost_per_success: 0.03, baseline: { cost_per_success: 0.01, completed: 300 }, ratio: 3, services: ['drafts'] });
    expect(op.levels).toEqual({ '0': 0.8, '1': 0.15, '2': 0, '3': 0, '4': 0.05 });
    expect(op.fallback).toEqual({ invoked: 60, failed: 9 });
    expect(op.series).toHaveLength(6);
    expect(op.series[5]).toMatchObject({ t: at(50), completed: 300, cost_per_success: 0.03, baseline: 0.01 });
  });
});

describe('GET /api/probes', () => {
  it('lists probe targets per location with figures and their last results, newest first', async () => {
    const answer = await c.get(`/api/probes?window=1h&to=${c.now}`);
    expect(answer.locations.map((l: any) => l.location)).toEqual(['eu-west', 'us-east']);
    const eu = answer.locations[0].targets[0];
    expect(eu.key).toEqual(KEY);
    expect(eu.figures).toMatchObject({ probes: 30, ok: 15, error: 15, status: 'failing' });
    expect(eu.last).toMatchObject({ outcome: 'error', error_class: 'server', status: 502, ts: at(59) + 5_000 });
    expect(eu.recent).toHaveLength(20);
    expect(eu.recent[0].ts).toBeGreaterThan(eu.recent[1].ts);
  });
});

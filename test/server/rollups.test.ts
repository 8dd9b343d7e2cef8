import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, batch, makeApp, windowEvent } from './helpers.ts';
import { histogramJson, quantile } from '../../server/storage/histogram.ts';
import { minuteOf } from '@breakerbox/protocol';

type TestApp = Awaited<ReturnType<typeof makeApp>>;
let t: TestApp;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

const post = (body: unknown) =>
  t.app.inject({
    method: 'POST', url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
    payload: JSON.stringify(body),
  });

describe('per-minute rollups', () => {
  it('sums windows from several instances of one service into one row per key and minute', async () => {
    const start = minuteOf(Date.now() - 120_000) + 5_000;
    const w = (calls: number) =>
      windowEvent({
        start, end: start + 10_000, calls, ok: calls - 1, slow: 0, errors: { server: 1 }, retries: 0, cold_excluded: 0,
        latency_ms: { bounds: [], counts: [calls] }, ttft_ms: undefined,
      });
    await post(batch([w(10)], { service: 'drafts', instance: 'pod-1' }));
    await post(batch([w(20)], { service: 'drafts', instance: 'pod-2' }));
    await post(batch([w(5)], { service: 'search', instance: 'pod-1' }));
    const rows = t.app.db
      .prepare('SELECT s.name AS service, m.calls, m.e_server, m.windows FROM key_minutes m JOIN services s ON s.id = m.service_id WHERE m.minute = ? ORDER BY s.name')
      .all(minuteOf(start));
    expect(rows).toEqual([
      { service: 'drafts', calls: 30, e_server: 2, windows: 2 },
      { service: 'search', calls: 5, e_server: 1, windows: 1 },
    ]);
    const instances = t.app.db.prepare('SELECT COUNT(*) AS n FROM key_minute_sources WHERE minute = ?').get(minuteOf(start)) as { n: number };
    expect(instances.n).toBe(3);
  });

  it('re-buckets client histograms onto the rollup bounds so percentiles merge across SDKs', async () => {
    const start = minuteOf(Date.now() - 120_000);
    await post(batch([
      windowEvent({ start, end: start + 10_000, latency_ms: { bounds: [100, 1000], counts: [10, 0, 0] } }),
      windowEvent({ start, end: start + 10_000, latency_ms: { bounds: [30, 400, 4000], counts: [0, 0, 10, 0] } }),
    ]));
    const row = t.app.db.prepare('SELECT * FROM key_minutes WHERE minute = ?').get(start) as Record<string, number>;
    const counts = Array.from({ length: 12 }, (_, i) => row[`h${i}`]!);
    // <=100 lands in the 100 bucket (index 2); <=4000 in the 5000 bucket (index 7).
    expect(counts[2]).toBe(10);
    expect(counts[7]).toBe(10);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(20);
    expect(quantile(counts, 0.25)).toBeLessThanOrEqual(100);
    expect(quantile(counts, 0.99)).toBeGreaterThan(2500);
  });

  it('counts transitions and opens per key and minute, and probes per location apart', async () => {
    const ts = minuteOf(Date.now() - 60_000) + 1_000;
    await post(batch([
      { type: 'transition', ts, key: KEY, from: null, to: 'closed', reason: 'created' },
      { type: 'transition', ts: ts + 1, key: KEY, from: 'closed', to: 'open', reason: 'error_rate' },
      { type: 'transition', ts: ts + 2, key: KEY, from: 'open', to: 'half_open', reason: 'cooldown_elapsed' },
    ]));
    await post(batch([
      { type: 'probe', ts, key: KEY, location: 'eu-west', outcome: 'ok', latency_ms: { total: 300 } },
      { type: 'probe', ts, key: KEY, location: 'eu-west', outcome: 'error', error_class: 'auth', status: 401, latency_ms: { total: 30 } },
      { type: 'probe', ts, key: KEY, location: 'us-east', outcome: 'slow', latency_ms: { total: 9000 } },
      { type: 'probe', ts, key: KEY, location: 'us-east', outcome: 'ok', cold: true, latency_ms: { total: 4000 } },
    ], { service: 'probe', instance: 'eu-west' }));
    const k = t.app.db.prepare('SELECT transitions, opens FROM key_minutes').get();
    // The first report (from: null, 'created') is not a change of state.
    expect(k).toEqual({ transitions: 2, opens: 1 });
    const p = t.app.db.prepare('SELECT location, probes, ok, slow, error, misconfigured, cold FROM probe_minutes ORDER BY location').all();
    expect(p).toEqual([
      { location: 'eu-west', probes: 2, ok: 1, slow: 0, error: 1, misconfigured: 1, cold: 0 },
      { location: 'us-east', probes: 1, ok: 0, slow: 1, error: 0, misconfigured: 0, cold: 1 },
    ]);
  });

  it('rolls task outcomes up per operation and minute with failover levels', async () => {
    const start = minuteOf(Date.now() - 60_000);
    const tasks = (completed: number) => ({
      type: 'tasks' as const, start, end: start + 10_000, operation: 'summarise', completed, failed: 1, degraded: 1, attempts: completed + 3,
      cost_usd: 0.5, levels: { '0': completed - 2, '2': 1, '4': 1 }, fallback: { invoked: 2, failed: 1 },
    });
    await post(batch([tasks(10), tasks(20)]));
    const row = t.app.db.prepare('SELECT * FROM task_minutes').get();
    expect(row).toMatchObject({ operation: 'summarise', completed: 30, failed: 2, degraded: 2, attempts: 36, cost_usd: 1, level0: 26, level2: 2, level4: 2, fallback_invoked: 4, fallback_failed: 2 });
  });

  it('writes nothing of a batch whose last event is invalid, rollups included', async () => {
    const res = await post(batch([windowEvent(), windowEvent(), windowEvent({ ok: -3 })]));
    expect(res.statusCode).toBe(400);
    expect(t.app.db.prepare('SELECT COUNT(*) AS n FROM key_minutes').get()).toEqual({ n: 0 });
    expect(t.app.db.prepare('SELECT COUNT(*) AS n FROM keys').get()).toEqual({ n: 0 });
  });
});

describe('dropped events', () => {
  it('adds a sender\'s reported drops to its source\'s running total, once per batch', async () => {
    const b = { ...batch([windowEvent()], { service: 'drafts', instance: 'pod-9' }), dropped_events: 40 };
    expect((await post(b)).statusCode).toBe(200);
    expect((await post(b)).json().duplicate).toBe(true);
    await post({ ...batch([windowEvent()], { service: 'drafts', instance: 'pod-9' }), dropped_events: 2 });
    expect(t.app.db.prepare("SELECT dropped_events FROM sources WHERE instance = 'pod-9'").get()).toEqual({ dropped_events: 42 });
  });
});

describe('stored histogram JSON', () => {
  it('is exactly what JSON.stringify gives, for every bounds set, alternating or new', () => {
    const hs = [
      { bounds: [100, 250, 500, 1000, 2500], counts: [5, 10, 20, 10, 4, 1] },
      { bounds: [100, 250, 500], counts: [10, 20, 15, 5] },
      { bounds: [], counts: [7] },
      { bounds: [0.5, 1.25], counts: [0, 0, 3] },
      { bounds: [100, 250, 500, 1000, 2500], counts: [0, 0, 0, 0, 0, 0] },
      { bounds: [1, 2, 3, 4, 5, 6], counts: [1, 2, 3, 4, 5, 6, 7] },
      { bounds: [100, 250, 500], counts: [1, 2, 3, 4] },
    ];
    for (const h of [...hs, ...hs]) expect(histogramJson(h)).toBe(JSON.stringify(h));
  });
});

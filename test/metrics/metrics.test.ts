import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, WindowEvent } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { KEY_FAMILIES } from '../../server/metrics/key-families.ts';
import { promtoolCheckMetrics, sample, scrape } from './support.ts';

const ODD: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:free@2024', region: 'us-east' };
const QUOTED: BreakerKey = { provider: 'openai-compatible', endpoint: 'chat', model: 'weird"model\\v1' };
const K = 'provider="together",endpoint="chat",model="meta-llama/Llama-3.3-70B-Instruct-Turbo:free@2024",region="us-east"';

let c: TestCollector;
let page: string;

beforeAll(async () => {
  c = await collector();
  const from = c.now - 10 * MIN;
  await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [
    transition(ODD, from - MIN, null, 'closed', 'created'),
    ...windows(ODD, from, c.now, { calls: 10, errors: { server: 2, auth: 1 }, slow: 1, retries: 3, rejected: 1, half_open: { ok: 1, failed: 1 }, latencyMs: 300 }),
    ...windows(QUOTED, from, c.now, { calls: 5 }),
    transition(ODD, c.now - 4 * MIN, 'closed', 'open'),
    {
      type: 'tasks', start: c.now - 2 * MIN, end: c.now - MIN, operation: 'draft-reply', completed: 40, failed: 2, degraded: 1, attempts: 50,
      cost_usd: 0.8, levels: { '0': 35, '1': 4, '4': 1 }, fallback: { invoked: 5, failed: 2 },
    },
  ]);
  await c.send({ service: 'billing', instance: 'pod-9' }, windows(ODD, from, c.now, { calls: 4, latencyMs: 2000 }));
  await c.send({ service: 'prober', instance: 'eu' }, probes(ODD, 'eu-west', from, c.now, 'error', { error_class: 'server', status: 503 }));
  await c.send({ service: 'prober', instance: 'us' }, probes(ODD, 'us-east', from, c.now, 'ok'));
  // A refused batch is counted by outcome and status; a sender's dropped events per source; a retried batch as a duplicate.
  const post = (payload: Record<string, unknown>) => c.app.inject({ method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${c.token}` }, payload });
  await post({ batch_id: 'x', source: {}, events: [] });
  const late = { batch_id: 'late-1', source: { service: 'ticket-drafts', instance: 'pod-2' }, dropped_events: 7, events: [transition(ODD, c.now - MIN, null, 'closed', 'created')] };
  expect((await post(late)).statusCode).toBe(200);
  expect((await post(late)).json()).toMatchObject({ duplicate: true });
  page = await scrape(c);
});
afterAll(() => c.close());

describe('GET /metrics', () => {
  it('passes promtool check metrics on a populated collector', () => {
    expect(promtoolCheckMetrics(page)).toBe('');
  });

  it('exports calls and failures per key and service as counters, error types only where they occurred', () => {
    expect(page).toContain('# TYPE breakerbox_calls_total counter');
    // 60 ten-second windows of 10 calls from ticket-drafts, of 4 from billing.
    expect(sample(page, 'breakerbox_calls_total', `${K},service="ticket-drafts"`)).toBe(600);
    expect(sample(page, 'breakerbox_calls_total', `${K},service="billing"`)).toBe(240);
    expect(sample(page, 'breakerbox_failed_calls_total', `${K},service="ticket-drafts",error_type="server"`)).toBe(120);
    expect(sample(page, 'breakerbox_failed_calls_total', `${K},service="ticket-drafts",error_type="auth"`)).toBe(60);
    expect(page).not.toContain('error_type="timeout"');
    expect(page).not.toMatch(/error_type="[a-z_]+"} 0\n/);
  });

  it('exports the other per-key counters with units and _total', () => {
    expect(sample(page, 'breakerbox_slow_calls_total', K)).toBe(60);
    expect(sample(page, 'breakerbox_bulkhead_rejected_calls_total', K)).toBe(60);
    expect(sample(page, 'breakerbox_retries_total', K)).toBe(180);
    expect(sample(page, 'breakerbox_half_open_calls_total', `${K},outcome="failed"`)).toBe(60);
    expect(sample(page, 'breakerbox_tokens_total', `${K},token_type="input"`)).toBe(84_000);
    expect(sample(page, 'breakerbox_cost_usd_total', K)).toBeCloseTo(0.84, 6);
    expect(sample(page, 'breakerbox_breaker_transitions_total', `${K},to_state="open",reason="error_rate"`)).toBe(1);
    // The first report (from: null) is not a transition.
    expect(page).not.toContain('reason="created"');
  });

  it('exports latency as a cumulative histogram on the protocol bounds, in seconds', () => {
    expect(page).toContain('# TYPE breakerbox_call_duration_seconds histogram');
    // The clients' buckets are (..100], (..500], (..1000], (..5000] ms: 600 calls at 300 ms land at
    // or below 0.5 s; billing's 240 at 2 s arrive in (1000, 5000] and so count at or below 5 s.
    expect(sample(page, 'breakerbox_call_duration_seconds_bucket', `${K},le="0.25"`)).toBe(0);
    expect(sample(page, 'breakerbox_call_duration_seconds_bucket', `${K},le="0.5"`)).toBe(600);
    expect(sample(page, 'breakerbox_call_duration_seconds_bucket', `${K},le="2.5"`)).toBe(600);
    expect(sample(page, 'breakerbox_call_duration_seconds_bucket', `${K},le="5"`)).toBe(840);
    expect(sample(page, 'breakerbox_call_duration_seconds_bucket', `${K},le="+Inf"`)).toBe(840);
    expect(sample(page, 'breakerbox_call_duration_seconds_count', K)).toBe(840);
  });

  it('exports probes per location with outcomes and a latency histogram with its sum', () => {
    expect(sample(page, 'breakerbox_probes_total', `${K},location="eu-west",outcome="error"`)).toBe(10);
    expect(sample(page, 'breakerbox_probes_total', `${K},location="us-east",outcome="ok"`)).toBe(10);
    expect(sample(page, 'breakerbox_probe_duration_seconds_count', `${K},location="us-east"`)).toBe(10);
    expect(sample(page, 'breakerbox_probe_duration_seconds_sum', `${K},location="us-east"`)).toBeCloseTo(3.5, 6);
  });

  it('keeps current states as gauges: instances by breaker state, open share, the verdict as a state set', () => {
    expect(page).toContain('# TYPE breakerbox_breaker_instances gauge');
    expect(sample(page, 'breakerbox_breaker_instances', `${K},state="open"`)).toBe(1);
    expect(sample(page, 'breakerbox_verdict', `${K},verdict="provider_outage"`)).toBe(1);
    expect(sample(page, 'breakerbox_verdict', `${K},verdict="healthy"`)).toBe(0);
    const open = sample(page, 'breakerbox_breaker_open_ratio', K)!;
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThan(1);
  });

  it('exports tasks and fallbacks per operation and service', () => {
    const op = 'operation="draft-reply",service="ticket-drafts"';
    expect(sample(page, 'breakerbox_tasks_total', `${op},outcome="completed"`)).toBe(40);
    expect(sample(page, 'breakerbox_fallback_failures_total', op)).toBe(2);
    expect(sample(page, 'breakerbox_tasks_served_total', `${op},level="4"`)).toBe(1);
    expect(page).not.toContain('level="2"');
    expect(sample(page, 'breakerbox_task_cost_usd_total', op)).toBeCloseTo(0.8, 6);
  });

  it("exports the collector's own health", () => {
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(page).toContain(`# TYPE ${name} `);
    }
    expect(page).toMatch(/breakerbox_build_info\{version="[^"]+",node_version="v\d+[^"]*",protocol="1"\} 1/);
    expect(sample(page, 'breakerbox_ingest_requests_total', 'outcome="accepted",status="200"')).toBe(6);
    expect(sample(page, 'breakerbox_ingest_duplicate_batches_total', '')).toBe(1);
    // A lone SQLite collector always leads (PostgreSQL fleets: test/storage/postgres-ha-paging.test.ts).
    expect(sample(page, 'breakerbox_leader', '')).toBe(1);
    expect(sample(page, 'breakerbox_source_dropped_events_total', 'service="ticket-drafts",service_instance_id="pod-2"')).toBe(7);
    expect(sample(page, 'breakerbox_ingest_requests_total', 'outcome="refused",status="400"')).toBe(1);
    expect(sample(page, 'breakerbox_ingest_events_total', 'type="window"')).toBe(60 * 3);
    expect(sample(page, 'breakerbox_ingest_events_total', 'type="probe"')).toBe(20);
    expect(sample(page, 'breakerbox_ingest_request_duration_seconds_count', 'outcome="accepted"')).toBe(6);
    expect(sample(page, 'breakerbox_ingest_events_total', 'type="transition"')).toBe(3);
    expect(sample(page, 'breakerbox_database_size_bytes', '')).toBeGreaterThan(0);
    expect(page).toContain('# TYPE breakerbox_database_wal_size_bytes gauge');
    expect(sample(page, 'breakerbox_metrics_dropped_keys', '')).toBe(0);
  });

  it('counts in breakerbox_metrics_series exactly the per-key series it wrote', () => {
    const names = new Set(KEY_FAMILIES.flatMap((f) => (f.type === 'histogram' ? [`${f.name}_bucket`, `${f.name}_sum`, `${f.name}_count`] : [f.name])));
    const written = page.split('\n').filter((line) => !line.startsWith('#') && names.has(line.split(/[{ ]/)[0]!)).length;
    expect(written).toBeGreaterThan(50);
    expect(sample(page, 'breakerbox_metrics_series', '')).toBe(written);
  });

  it('escapes quotes and backslashes in label values and keeps model ids intact', () => {
    expect(page).toContain('breakerbox_calls_total{provider="openai-compatible",endpoint="chat",model="weird\\"model\\\\v1",region="",service="ticket-drafts"} 300');
  });

  it('answers concurrent scrapes, each page complete', async () => {
    const pages = await Promise.all([scrape(c), scrape(c), scrape(c)]);
    for (const p of pages) {
      expect(sample(p, 'breakerbox_calls_total', `${K},service="ticket-drafts"`)).toBe(600);
      expect(p.endsWith('breakerbox_metrics_series_dropped_total 0\n')).toBe(true);
    }
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

describe('counters from storage', () => {
  it('stay where they were across a collector restart and keep growing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bbx-metrics-restart-'));
    const env = { BREAKERBOX_DB: join(dir, 'bbx.db') };
    const key: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4' };
    const labels = 'provider="anthropic",endpoint="messages",model="claude-sonnet-4",region="",service="svc"';
    try {
      const first = await collector({ env });
      await first.send({ service: 'svc', instance: 'a' }, windows(key, first.now - 5 * MIN, first.now, { calls: 3 }));
      const before = sample(await scrape(first), 'breakerbox_calls_total', labels);
      await first.close();

      const second = await collector({ env, tokenName: 'second' });
      try {
        expect(sample(await scrape(second), 'breakerbox_calls_total', labels)).toBe(before);
        await second.send({ service: 'svc', instance: 'a' }, windows(key, second.now - MIN, second.now, { calls: 3 }));
        expect(sample(await scrape(second), 'breakerbox_calls_total', labels)).toBe(before! + 18);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metrics.state_gauges: false', () => {
  it('leaves out breaker states, open share and verdicts and keeps the counters', async () => {
    const quiet = await collector({ config: { metrics: { state_gauges: false } } });
    try {
      await quiet.send({ service: 's', instance: 'i' }, windows(ODD, quiet.now - 2 * MIN, quiet.now, { calls: 2 }));
      const p = await scrape(quiet);
      expect(sample(p, 'breakerbox_calls_total', `${K},service="s"`)).toBe(24);
      expect(p).toContain('# TYPE breakerbox_verdict gauge');
      expect(p).not.toMatch(/^breakerbox_(verdict|breaker_instances|breaker_open_ratio)\{/m);
    } finally {
      await quiet.close();
    }
  });
});

describe('series cap', () => {
  it('drops whole keys past metrics.max_series, counts what it dropped, and the page stays valid', async () => {
    const capped = await collector({ config: { metrics: { max_series: 40 } } });
    try {
      const events: WindowEvent[] = [];
      for (let i = 0; i < 6; i++) events.push(...windows({ provider: 'p', endpoint: 'chat', model: `m-${i}` }, capped.now - MIN, capped.now, { calls: 1 }));
      await capped.send({ service: 's', instance: 'i' }, events);
      const first = await scrape(capped);
      expect(promtoolCheckMetrics(first)).toBe('');
      const exported = first.match(/^breakerbox_calls_total\{/gm)?.length ?? 0;
      expect(exported).toBeGreaterThan(0);
      expect(exported).toBeLessThan(6);
      expect(sample(first, 'breakerbox_metrics_dropped_keys', '')).toBe(6 - exported);
      expect(sample(first, 'breakerbox_metrics_series', '')).toBeLessThanOrEqual(40);
      // The oldest keys stay: the exported set does not change from scrape to scrape.
      expect(first).toContain('model="m-0"');
      const dropped = sample(first, 'breakerbox_metrics_series_dropped_total', '')!;
      expect(dropped).toBeGreaterThan(0);
      expect(sample(await scrape(capped), 'breakerbox_metrics_series_dropped_total', '')).toBe(2 * dropped);
    } finally {
      await capped.close();
    }
  });
});

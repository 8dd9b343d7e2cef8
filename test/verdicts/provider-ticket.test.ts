/**
 * The provider ticket of an incident: models and regions, the span in UTC, errors by status
 * and provider code, the latest request ids, the probe locations that saw it — and no
 * service or instance name unless asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, CallSample, ProbeEvent } from '@breakerbox/protocol';
import { MIN, collector, windows, type TestCollector } from './support.ts';
import { TICKET_REQUEST_IDS } from '../../server/verdicts/provider-ticket.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini', region: 'us-east' };
let c: TestCollector;
let base: number;
const at = (m: number) => base + m * MIN;
const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

beforeAll(async () => {
  c = await collector();
  base = c.now - 20 * MIN;
  const probe = (m: number, ok: boolean): ProbeEvent => ({
    type: 'probe', ts: at(m), key: KEY, location: 'eu-west', outcome: ok ? 'ok' : 'error', latency_ms: { total: 300 }, ...(ok ? {} : { error_class: 'server', status: 503 }),
  });
  await c.send({ service: 'prober', instance: 'eu' }, [probe(1, true), ...[10, 11, 12, 13, 14, 15, 16, 17, 18].map((m) => probe(m, false))]);
  const events = windows(KEY, at(10), at(19), { calls: 50, errors: { server: 30 } });
  events.forEach((w, i) => {
    w.samples = [0, 1].map((j): CallSample => ({
      ts: w.end - 5_000 + j, outcome: 'error', error_class: i % 9 === 0 && j ? 'rate_limit' : 'server', status: i % 9 === 0 && j ? 429 : 503,
      ...(i % 9 === 0 && j ? { error_code: 'rate_limit_exceeded' } : { error_type: 'server_error' }), upstream_request_id: `req_${i}_${j}`, attempt: 1, duration_ms: 900,
    }));
  });
  await c.send({ service: 'drafts', instance: 'pod-3' }, events);
});
afterAll(async () => {
  await c?.close();
});

async function ticket(id: string, query: string): Promise<{ status: number; type: string; text: string }> {
  const res = await c.app.inject({ url: `/api/incidents/${id}/ticket?${query}`, headers: { authorization: `Bearer ${c.token}` } });
  return { status: res.statusCode, type: String(res.headers['content-type']), text: res.body };
}

describe('provider ticket', () => {
  it('summarises the incident for the provider without naming our services', async () => {
    const { incidents } = await c.get<{ incidents: { id: string; verdict: string }[] }>(`/api/incidents?from=${at(0)}&to=${at(19)}`);
    const incident = incidents.find((i) => i.verdict.startsWith('provider'));
    expect(incident).toBeDefined();
    const t = await ticket(incident!.id, `from=${at(0)}&to=${at(19)}`);
    expect(t.status).toBe(200);
    expect(t.type).toContain('text/plain');
    expect(t.text).toContain('Incident report for openai support');
    expect(t.text).toContain('- gpt-4o-mini (chat, region us-east): provider outage');
    const samples = (at(19) - at(10)) / 10_000;
    expect(t.text).toContain(`Failed calls seen from ${utc(at(10) + 5_000)} to ${utc(at(19) - 5_000 + 1)} (9 min), ${samples * 2} sampled.`);
    expect(t.text).toMatch(/- 503 server_error: \d+/);
    expect(t.text).toMatch(/- 429 rate_limit_exceeded: \d+/);
    const ids = t.text.split('\n').filter((l) => / req_\d+_\d$/.test(l));
    expect(ids).toHaveLength(TICKET_REQUEST_IDS);
    expect(ids[0]).toContain(`req_${samples - 1}_1`);
    expect(t.text).toContain(`- eu-west, gpt-4o-mini: 9 of 10 failed, first at ${utc(at(10))}, last at ${utc(at(18))}`);
    expect(t.text).not.toMatch(/drafts|pod-3/);
    const named = await ticket(incident!.id, `from=${at(0)}&to=${at(19)}&sources=true`);
    expect(named.text).toContain('(drafts/pod-3)');
  });

  it('answers 404 for an incident not in the window', async () => {
    expect((await ticket('0123456789abcdef', 'window=1h')).status).toBe(404);
  });
});

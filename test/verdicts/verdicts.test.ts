import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector, type Traffic } from './support.ts';

const K = {
  outage: { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' },
  storm: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o:2024-08-06' },
  client: { provider: 'openai', endpoint: 'chat', model: 'ft:gpt-4o-mini:acme:triage:9xYz' },
  quota: { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' },
  capacity: { provider: 'together', endpoint: 'chat', model: 'mistralai/Mixtral-8x7B:instruct' },
  local: { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-small', region: 'eu' },
  degraded: { provider: 'groq', endpoint: 'chat', model: 'llama-3.1-8b-instant' },
  regional: { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest' },
  outageRegional: { provider: 'mistral', endpoint: 'chat', model: 'mistral-small-latest' },
  healthy: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' },
  misconfOne: { provider: 'openai', endpoint: 'chat', model: 'o3-mini' },
  misconfAll: { provider: 'openai', endpoint: 'chat', model: 'o1' },
  low: { provider: 'cohere', endpoint: 'chat', model: 'command-r:latest' },
  noProbes: { provider: 'deepseek', endpoint: 'chat', model: 'deepseek-ai/DeepSeek-V3' },
  open: { provider: 'fireworks', endpoint: 'chat', model: 'accounts/fireworks/models/llama-v3p1-8b' },
  recovering: { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514', region: 'eu' },
  starting: { provider: 'together', endpoint: 'chat', model: 'Qwen/Qwen2.5-72B-Instruct-Turbo' },
} satisfies Record<string, BreakerKey>;

let c: TestCollector;
let verdicts: Map<string, any>;
const id = (k: BreakerKey) => `${k.provider}|${k.endpoint}|${k.model}|${k.region ?? ''}`;

beforeAll(async () => {
  c = await collector();
  const from = c.now - 15 * MIN;
  const to = c.now;
  const clean: Traffic = { calls: 10 };
  const byInstance = new Map<string, TelemetryEvent[]>();
  const add = (instance: string, events: TelemetryEvent[]) => byInstance.set(instance, [...(byInstance.get(instance) ?? []), ...events]);
  const both = (key: BreakerKey, eu: 'ok' | 'error', us: 'ok' | 'error', extra = {}) => {
    add('probe-eu', probes(key, 'eu-west', from, to, eu, eu === 'error' ? { error_class: 'server', status: 503, ...extra } : {}));
    add('probe-us', probes(key, 'us-east', from, to, us, us === 'error' ? { error_class: 'server', status: 503, ...extra } : {}));
  };

  for (const pod of ['pod-1', 'pod-2', 'pod-3']) add(pod, windows(K.outage, from, to, { calls: 10, errors: { server: 4 } }));
  both(K.outage, 'error', 'error');
  add('pod-1', windows(K.storm, from, to, { calls: 10, errors: { server: 3 }, retries: 8 }));
  both(K.storm, 'ok', 'ok');
  add('pod-1', windows(K.client, from, to, { calls: 10, errors: { auth: 8 } }));
  both(K.client, 'ok', 'ok');
  add('pod-1', windows(K.quota, from, to, { calls: 10, errors: { quota: 5, rate_limit: 1 } }));
  both(K.quota, 'ok', 'ok');
  add('pod-1', windows(K.capacity, from, to, { calls: 10, rejected: 5, latencyMs: 200 }));
  both(K.capacity, 'ok', 'ok');
  add('pod-1', windows(K.local, from, to, { calls: 10, errors: { server: 5 } }));
  add('pod-2', windows(K.local, from, to, clean));
  both(K.local, 'ok', 'ok');
  add('pod-1', windows(K.degraded, from, to, clean));
  both(K.degraded, 'error', 'error');
  add('pod-1', windows(K.regional, from, to, clean));
  both(K.regional, 'error', 'ok');
  add('pod-1', windows(K.outageRegional, from, to, { calls: 10, errors: { timeout: 4 } }));
  both(K.outageRegional, 'error', 'ok');
  add('pod-1', windows(K.healthy, from, to, clean));
  both(K.healthy, 'ok', 'ok');
  add('pod-1', windows(K.misconfOne, from, to, clean));
  add('probe-eu', probes(K.misconfOne, 'eu-west', from, to, 'error', { error_class: 'auth', status: 401 }));
  add('probe-us', probes(K.misconfOne, 'us-east', from, to, 'ok'));
  add('pod-1', windows(K.misconfAll, from, to, clean));
  both(K.misconfAll, 'error', 'error', { error_class: 'bad_request', status: 404 });
  add('pod-1', windows(K.low, to - 2 * MIN, to - MIN, { calls: 1 }));
  both(K.low, 'ok', 'ok');
  add('pod-1', windows(K.noProbes, from, to, clean));
  for (const pod of ['pod-1', 'pod-2']) {
    add(pod, [transition(K.open, from - 5 * MIN, null, 'closed', 'created')]);
    add(pod, windows(K.open, from, to, clean));
  }
  add('pod-1', [transition(K.open, to - 3 * MIN, 'closed', 'open')]);
  both(K.open, 'ok', 'ok');
  // An outage that ended 3 minutes ago: clients failed for 12 of the 15 minutes, probes
  // failed twice a minute until then and have been ok (4 a minute) since.
  const recoveredAt = to - 3 * MIN;
  add('pod-1', windows(K.recovering, from, recoveredAt, { calls: 10, errors: { server: 4 } }));
  add('pod-1', windows(K.recovering, recoveredAt, to, clean));
  // An outage that began 3 minutes ago: the last 3 probes from each location failed, the 7
  // before them were fine.
  add('pod-1', windows(K.starting, from, to, { calls: 10, errors: { server: 4 } }));
  for (const [location, instance] of [['eu-west', 'probe-eu'], ['us-east', 'probe-us']] as const) {
    add(instance, [
      ...probes(K.starting, location, from, to - 3 * MIN, 'ok'),
      ...probes(K.starting, location, to - 3 * MIN, to, 'error', { error_class: 'server', status: 503 }),
    ]);
  }
  for (const [location, instance] of [['eu-west', 'probe-eu'], ['us-east', 'probe-us']] as const) {
    add(instance, [
      ...probes(K.recovering, location, from, recoveredAt, 'error', { error_class: 'server', status: 503 }),
      ...probes(K.recovering, location, from + 30_000, recoveredAt, 'error', { error_class: 'server', status: 503 }),
      ...[0, 15_000, 30_000, 45_000].flatMap((offset) => probes(K.recovering, location, recoveredAt + offset, to, 'ok')),
    ]);
  }

  for (const [instance, events] of byInstance) {
    await c.send({ service: instance.startsWith('probe') ? 'prober' : 'ticket-drafts', instance }, events);
  }
  const answer = await c.get(`/api/verdicts?from=${from}&to=${to}`);
  verdicts = new Map(answer.verdicts.map((v: any) => [id(v.key), v]));
});
afterAll(() => c.close());

const v = (k: BreakerKey) => {
  const entry = verdicts.get(id(k));
  if (!entry) throw new Error(`no verdict for ${id(k)}`);
  return entry;
};

describe('GET /api/verdicts', () => {
  it('returns every key seen in the window, model ids with / : @ exactly, worst first', async () => {
    expect(verdicts.size).toBe(Object.keys(K).length);
    const answer = await c.get(`/api/verdicts?from=${c.now - 15 * MIN}&to=${c.now}`);
    const order = ['provider_outage', 'self_inflicted', 'provider_degraded', 'insufficient_data', 'healthy'];
    const ranks = answer.verdicts.map((e: any) => order.indexOf(e.verdict));
    expect(ranks).toEqual([...ranks].sort((a: number, b: number) => a - b));
    expect(answer.window).toEqual({ from: c.now - 15 * MIN, to: c.now });
    for (const key of Object.values(K)) expect(v(key).key).toEqual(key);
  });

  it('calls a provider outage when clients fail and every probe location fails, with checkable evidence', () => {
    const e = v(K.outage);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', null]);
    expect(e.clients).toMatchObject({ calls: 2700, failed: 1080, error_share: 0.4, provider_error_share: 0.4, instances: 3, degraded: true });
    expect(e.probes['eu-west']).toMatchObject({ status: 'failing', probes: 15, ok: 0, error: 15 });
    expect(e.evidence).toContain('clients: 40% of 2,700 calls failed on 3 instances (provider-side 40%: server 1,080)');
    expect(e.evidence).toContain('probes: 0 of 20 recent ok from eu-west and us-east');
  });

  it('keeps calling it a provider outage once the probes recover if they failed for most of the window', () => {
    const e = v(K.recovering);
    expect(e.verdict).toBe('provider_outage');
    expect(e.hint).toBeNull();
    expect(e.probes['eu-west'].status).toBe('ok');
    expect(e.evidence.join('\n')).toMatch(/probes from eu-west failed 24 of 36 in the window but the most recent are ok/);
  });

  it('sees a provider outage as soon as the latest probes all fail, before most of the recent ones have', () => {
    const e = v(K.starting);
    expect(e.probes['eu-west'].recent).toEqual({ probes: 10, failed: 3 });
    expect(e.probes['eu-west'].status).toBe('failing');
    expect(e.verdict).toBe('provider_outage');
  });

  it('calls it self-inflicted with retry_storm when retries run high and probes are fine', () => {
    const e = v(K.storm);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'retry_storm']);
    expect(e.clients.retry_ratio).toBe(0.8);
    expect(e.evidence).toContain('hint retry_storm: retry ratio 0.8 ≥ 0.5');
  });

  it('counts client-fault classes as degradation and hints client_errors (80% auth)', () => {
    const e = v(K.client);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'client_errors']);
    expect(e.clients.client_error_share).toBe(0.8);
    expect(e.clients.provider_error_share).toBe(0);
  });

  it('hints quota when our 429s dominate while the probes are served', () => {
    expect([v(K.quota).verdict, v(K.quota).hint]).toEqual(['self_inflicted', 'quota']);
  });

  it('hints capacity for bulkhead rejections with normal latency', () => {
    const e = v(K.capacity);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'capacity']);
    expect(e.clients.rejection_share).toBeCloseTo(5 / 15, 3);
  });

  it('hints local when only some instances are degraded', () => {
    const e = v(K.local);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'local']);
    expect(e.evidence).toContain('hint local: degraded on pod-1 only; healthy on pod-2');
  });

  it('calls it provider_degraded when probes fail while clients are fine', () => {
    expect([v(K.degraded).verdict, v(K.degraded).hint]).toEqual(['provider_degraded', null]);
  });

  it('hints regional when one probe location fails and another is fine', () => {
    expect([v(K.regional).verdict, v(K.regional).hint]).toEqual(['provider_degraded', 'regional']);
    expect([v(K.outageRegional).verdict, v(K.outageRegional).hint]).toEqual(['provider_outage', 'regional']);
    expect(v(K.regional).evidence).toContain('hint regional: probes failing from eu-west, fine from us-east, beyond chance (p = 1.1e-5 ≤ 0.01)');
  });

  it('calls healthy keys healthy', () => {
    expect([v(K.healthy).verdict, v(K.healthy).hint]).toEqual(['healthy', null]);
    expect(v(K.healthy).clients.degraded).toBe(false);
  });

  it('treats probes failing with auth or bad_request as misconfigured, not as a provider signal', () => {
    expect([v(K.misconfOne).verdict, v(K.misconfOne).hint]).toEqual(['healthy', 'probe_misconfigured']);
    expect(v(K.misconfOne).probes['eu-west'].status).toBe('misconfigured');
    expect([v(K.misconfAll).verdict, v(K.misconfAll).hint]).toEqual(['insufficient_data', 'probe_misconfigured']);
  });

  it('says which side is missing when data is insufficient', () => {
    expect([v(K.low).verdict, v(K.low).hint]).toEqual(['insufficient_data', 'low_volume']);
    expect(v(K.low).clients.calls).toBe(6);
    expect([v(K.noProbes).verdict, v(K.noProbes).hint]).toEqual(['insufficient_data', 'no_probes']);
    expect(v(K.noProbes).evidence).toContain('probes: none in the window');
  });

  it('computes open share from transitions over the instance-time of reporting instances', () => {
    const e = v(K.open);
    expect(e.clients.open_share).toBeCloseTo(3 / 30, 3);
    expect(e.clients.degraded).toBe(true);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'local']);
  });

  it('refuses a bad window with a 400 naming the parameter', async () => {
    const res = await c.app.inject({ url: '/api/verdicts?window=2h', headers: { authorization: `Bearer ${c.token}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BB_ERR_QUERY_INVALID', path: '/querystring/window' });
  });

  it('needs a token with the read right', async () => {
    expect((await c.app.inject({ url: '/api/verdicts' })).statusCode).toBe(401);
    const ingestOnly = (await c.app.storage.tokens.create('ingest-only', ['ingest'])).secret;
    expect((await c.app.inject({ url: '/api/verdicts', headers: { authorization: `Bearer ${ingestOnly}` } })).statusCode).toBe(403);
  });
});

describe('GET /api/keys', () => {
  it('lists every key with its state across instances, verdict and headline numbers', async () => {
    const answer = await c.get(`/api/keys?from=${c.now - 15 * MIN}&to=${c.now}`);
    const open = answer.keys.find((k: any) => id(k.key) === id(K.open));
    expect(open.state).toEqual({ summary: 'open', open: 1, half_open: 0, closed: 1, instances: 2, text: 'open on 1 of 2' });
    expect(open.headline.open_share).toBeCloseTo(0.1, 3);
    expect(open.services).toEqual(['ticket-drafts']);
    const outage = answer.keys.find((k: any) => id(k.key) === id(K.outage));
    expect(outage).toMatchObject({ verdict: 'provider_outage', headline: { calls: 2700, error_share: 0.4, probe_success_share: 0 } });
    expect(answer.keys).toHaveLength(Object.keys(K).length);
  });
});

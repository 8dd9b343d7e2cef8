/**
 * Issue 36, "judge each service, and let the key say what its worst service says": one
 * service of a key failing hard while healthy callers dilute the key's totals below the
 * degraded threshold (service-cases.ts), replayed through the real ingest endpoint and read
 * back through /api/verdicts, /api/keys, /api/key, /api/incidents and /api/alerts, which
 * must tell the same story.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { SERVICE_CASES, authCase, policyCase, regionalCase, twoCausesCase } from './service-cases.ts';
import type { fleet } from './issue-cases.ts';
import { MIN, collector, keyQuery, type TestCollector, sameKey } from './support.ts';

/** What every read of one key says, after two alert passes `for_s` (60 s) apart. */
async function replay(events: (to: number) => ReturnType<typeof fleet>, key: BreakerKey) {
  const c: TestCollector = await collector();
  await events(c.now).send(c);
  const range = `from=${c.now - 15 * MIN}&to=${c.now}`;
  const verdict = (await c.get(`/api/verdicts?${range}`)).verdicts.find((x: any) => sameKey(x.key, key));
  const listed = (await c.get(`/api/keys?${range}`)).keys.find((x: any) => sameKey(x.key, key));
  const detail = await c.get(`/api/key?${keyQuery(key)}&${range}`);
  const incident = (await c.get(`/api/incidents?${range}`)).incidents.find((i: any) => i.keys.some((k: any) => sameKey(k.key, key)));
  await c.app.alerts.evaluate(c.now - 60_000);
  await c.app.alerts.evaluate(c.now);
  const alerts = (await c.get('/api/alerts')).alerts.filter((a: any) => sameKey(a.key, key));
  return { c, verdict, listed, detail, incident, alerts };
}

type Replay = Awaited<ReturnType<typeof replay>>;

/** The key's verdict and hint are the same on every read, and no summary of it says it is healthy. */
function agrees(r: Replay, verdict: string, hint: string | null) {
  expect([r.verdict.verdict, r.verdict.hint]).toEqual([verdict, hint]);
  expect([r.listed.verdict, r.listed.hint]).toEqual([verdict, hint]);
  expect([r.detail.verdict, r.detail.hint]).toEqual([verdict, hint]);
  expect(r.detail.series.at(-1).verdict).toBe(verdict);
  expect(r.incident).toMatchObject({ verdict, keys: [{ verdict, hint }] });
  expect(r.alerts.length).toBeGreaterThan(0);
  for (const a of r.alerts) {
    expect([a.rule, a.verdict, a.hint]).toEqual([a.rule, verdict, hint]);
    expect(a.summary).not.toMatch(/healthy now|clients fine/);
  }
  expect(r.verdict.alternative.verdict).not.toBe(verdict);
  expect(r.verdict.evidence.at(-1)).toBe(`why not ${r.verdict.alternative.verdict}: ${r.verdict.alternative.why}`);
}

describe('policy refusals on one of three services calling openai chat', () => {
  let r: Replay;
  beforeAll(async () => {
    r = await replay(policyCase, SERVICE_CASES.policy);
  });
  afterAll(() => r.c.close());

  it('makes the key self-inflicted on that service, while its figures stay the whole key\'s', () => {
    agrees(r, 'self_inflicted', 'client_errors');
    expect(r.verdict.clients).toMatchObject({ calls: 2340, failed: 240, services: 3, degraded: false });
    expect(r.listed.headline).toMatchObject({ calls: 2340, error_share: 0.1026 });
  });

  it('leads the evidence with the service, its figures and the healthy others', () => {
    expect(r.verdict.evidence.slice(0, 3)).toEqual([
      'self_inflicted: marketing-copy: 33% of 720 calls failed (policy 240); 2 other services healthy (chat-ui and search) — marketing-copy degraded while probes are fine: look at our side',
      'marketing-copy degraded: error share 33% ≥ 20%',
      'clients: 10% of 2,340 calls failed on 5 instances of 3 services (client-fault 10%: policy 240)',
    ]);
    expect(r.verdict.evidence).toContain('hint client_errors: 100% of failures are our own classes (bad_request/auth/context_length/policy; ≥ 50%)');
    expect(r.verdict.evidence.join('\n')).not.toContain('clients and probes healthy');
  });

  it('is the incident of that service, and its page names it', () => {
    expect(r.incident.title).toBe('marketing-copy: 1 key, self-inflicted (client_errors)');
    expect(r.incident.evidence[1]).toMatch(/^openai\/chat\/gpt-4o@2024-11-20: self_inflicted: marketing-copy: 33% of 720 calls failed/);
    const [page] = r.alerts.filter((a: any) => a.rule === 'clients_degraded');
    expect(page).toMatchObject({ state: 'firing', group_key: r.incident.id });
    expect(page.summary).toBe(
      'clients failing over the last 5 min: marketing-copy 50% of 240 calls failed (self_inflicted / client_errors) (1 of 3 services calling the key) — self_inflicted / client_errors on marketing-copy',
    );
  });
});

describe('auth on one of two services calling anthropic messages after its key was rotated', () => {
  let r: Replay;
  beforeAll(async () => {
    r = await replay(authCase, SERVICE_CASES.auth);
  });
  afterAll(() => r.c.close());

  it('makes the key self-inflicted on drafts, with the figures of drafts and of the key', () => {
    agrees(r, 'self_inflicted', 'client_errors');
    expect(r.verdict.clients).toMatchObject({ calls: 990, failed: 108, degraded: false });
    expect(r.verdict.evidence[0]).toBe(
      'self_inflicted: drafts: 40% of 270 calls failed (auth 108); 1 other service healthy (summaries) — drafts degraded while probes are fine: look at our side',
    );
    expect(r.verdict.evidence).toContain('probes not needed: 100% of failures are our own classes (auth 108), which a provider answers the same whatever its health');
    expect(r.incident.title).toBe('drafts: 1 key, self-inflicted (client_errors)');
  });

  it('pages with the verdict of the key, not "healthy", when the last 5 minutes alone make the key degraded', () => {
    // Over the last 5 minutes drafts' 90 failed calls are 27 % of the key's: the key is degraded
    // as a whole there, and the page quotes the key's verdict over the verdict window.
    const [page] = r.alerts.filter((a: any) => a.rule === 'clients_degraded');
    expect(page.summary).toBe(
      'clients failing over the last 5 min: drafts 100% of 90 calls failed (1 of 2 services calling the key) — probes fine from 1 location: likely self-inflicted (client_errors) on drafts',
    );
  });
});

describe('the provider failing in the one region a service calls it from (mistral chat)', () => {
  let r: Replay;
  beforeAll(async () => {
    r = await replay(regionalCase, SERVICE_CASES.regional);
  });
  afterAll(() => r.c.close());

  it('is a regional provider outage felt by eu-assistant, not an early warning nobody feels', () => {
    agrees(r, 'provider_outage', 'regional');
    expect(r.verdict.clients).toMatchObject({ calls: 2700, failed: 360, degraded: false });
    expect(r.verdict.evidence[0]).toBe(
      'provider_outage: eu-assistant: 40% of 900 calls failed (server 360); 2 other services healthy (us-drafts and us-search) — eu-assistant degraded and probes failing from some locations only, beyond chance: the provider is down in one region — fail over to another region or provider',
    );
    expect(r.verdict.evidence.join('\n')).toMatch(/^hint regional: probes failing from eu-west, fine from us-east, beyond chance \(p = [0-9.e-]+ ≤ 0\.01\)$/m);
    expect(r.incident.title).toBe('mistral: mistral-large-2411, provider outage (regional)');
  });

  it('says the same in the probe page and the clients page', () => {
    const probe = r.alerts.find((a: any) => a.rule === 'probe_failing');
    expect(probe.summary).toBe(
      'probe from eu-west failed 15 times in a row (last: error server 503) — probes failing from eu-west, fine from us-east: likely provider outage (regional) on eu-assistant',
    );
    const clients = r.alerts.find((a: any) => a.rule === 'clients_degraded');
    expect(clients.summary).toMatch(/^clients failing over the last 5 min: eu-assistant 40% of 300 calls failed \(provider_outage \/ regional\)/);
  });
});

describe('two services of one key degraded for different causes of their own (together chat)', () => {
  let r: Replay;
  beforeAll(async () => {
    r = await replay(twoCausesCase, SERVICE_CASES.two);
  });
  afterAll(() => r.c.close());

  it('leads with the worst (all its calls failing on quota) and names the other with its own cause', () => {
    agrees(r, 'self_inflicted', 'quota');
    expect(r.verdict.evidence[0]).toBe(
      'self_inflicted: billing-bot: 100% of 180 calls failed (quota 180); also ocr (self_inflicted / client_errors): 25% of 360 calls failed (context_length 90); 1 other service healthy (assistant) — billing-bot degraded while probes are fine: look at our side',
    );
    expect(r.incident.title).toBe('billing-bot, ocr: 1 key, self-inflicted (quota)');
  });
});

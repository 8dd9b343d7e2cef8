/**
 * Issue 23's incidents replayed through the real ingest endpoint (issue-23-cases.ts), read
 * back through /api/verdicts, /api/incidents and /api/alerts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { CASES_23, authCase, outageCase, quotaCase, silentCase, silentResumes, unprobedCase } from './issue-23-cases.ts';
import { MIN, collector, probes, type TestCollector, sameKey } from './support.ts';

/** One collector per case: the case's events sent, its verdict and incidents over the last 15 minutes. */
async function replay(send: (c: TestCollector) => Promise<void>, key: BreakerKey) {
  const c = await collector();
  await send(c);
  const range = `from=${c.now - 15 * MIN}&to=${c.now}`;
  const verdict = (await c.get(`/api/verdicts?${range}`)).verdicts.find((x: any) => sameKey(x.key, key));
  const incidents = (await c.get(`/api/incidents?${range}`)).incidents;
  const alerts = async (rule: string) => (await c.get('/api/alerts')).alerts.filter((a: any) => a.rule === rule);
  return { c, verdict, incidents, alerts };
}

/** Every verdict says why not the other answer, with no empty list in it. */
function explainsItself(e: any) {
  expect(e.alternative.verdict).not.toBe(e.verdict);
  expect(e.evidence.at(-1)).toBe(`why not ${e.alternative.verdict}: ${e.alternative.why}`);
  expect(e.alternative.why).not.toMatch(/from ,|from $| of 0 recent/);
}

describe('a model nobody probes, while the same provider\'s other models fail every probe', () => {
  let r: Awaited<ReturnType<typeof replay>>;
  beforeAll(async () => {
    r = await replay((c) => unprobedCase(c.now).send(c), CASES_23.unprobed);
  });
  afterAll(() => r.c.close());

  it('is a provider outage decided by the sibling keys\' probes, naming them and their locations', () => {
    expect([r.verdict.verdict, r.verdict.hint]).toEqual(['provider_outage', 'sibling_probes']);
    expect(r.verdict.evidence).toContain(
      "hint sibling_probes: no usable probe of this key, so the provider's other keys speak for it — 40 of 40 recent probes of mistral/chat/codestral-latest and mistral/embeddings/mistral-embed failed, failing from every location (eu-west and us-east); the clients fail with provider-side classes (100% of failures)",
    );
    expect(r.verdict.alternative.verdict).toBe('self_inflicted');
    explainsItself(r.verdict);
  });

  it('joins the provider\'s incident', () => {
    const mistral = r.incidents.find((i: any) => i.cause.kind === 'provider' && i.cause.name === 'mistral');
    expect(mistral.title).toBe('mistral: 3 models, provider outage');
    expect(mistral.keys.find((k: any) => sameKey(k.key, CASES_23.unprobed))).toMatchObject({ verdict: 'provider_outage', hint: 'sibling_probes' });
  });

  it('pages open_share with the provider verdict, grouped into that incident', async () => {
    await r.c.app.alerts.evaluate(r.c.now);
    const [open] = await r.alerts('open_share');
    expect(open.summary).toBe("open 87% of the last 15 min (open on 4 of 4) — no probe of its own; the provider's other keys fail from eu-west and us-east: likely provider outage (sibling_probes)");
    expect(open.group_key).toBe(r.incidents.find((i: any) => i.cause.name === 'mistral').id);
  });
});

describe('healthy sibling probes', () => {
  it('neither refute a failure of one model nor make it ours', async () => {
    const r = await replay(async (c) => {
      await unprobedCase(c.now).send(c);
      for (const location of ['eu-west', 'us-east']) {
        await c.send({ service: 'prober', instance: location }, [
          ...probes(CASES_23.siblingChat, location, c.now - 15 * MIN + 30_000, c.now, 'ok'),
          ...probes(CASES_23.siblingEmbed, location, c.now - 15 * MIN + 30_000, c.now, 'ok'),
        ]);
      }
    }, CASES_23.unprobed);
    try {
      // Every other probe of the siblings is served: recent probes 50% failed, status ok.
      expect(r.verdict.verdict).not.toBe('self_inflicted');
      expect([r.verdict.verdict, r.verdict.hint]).toEqual(['insufficient_data', 'no_probes']);
      expect(r.verdict.evidence.join('\n')).toContain('health is a property of the model, not the host: they neither refute a failure of this one nor make it ours');
    } finally {
      await r.c.close();
    }
  });
});

describe('401s on every call of a service, with no probe for the key', () => {
  it('is self-inflicted without waiting for a probe, and says why none was needed', async () => {
    const r = await replay((c) => authCase(c.now).send(c), CASES_23.auth);
    try {
      expect([r.verdict.verdict, r.verdict.hint]).toEqual(['self_inflicted', 'client_errors']);
      expect(r.verdict.evidence).toContain(
        'probes not needed: 100% of failures are our own classes (auth 840), which a provider answers the same whatever its health — no location probes this key, and none has to',
      );
      explainsItself(r.verdict);
      expect(r.incidents.map((i: any) => i.title)).toEqual(['drafts: 1 key, self-inflicted (client_errors)']);
    } finally {
      await r.c.close();
    }
  });
});

describe('every call of one service failing on its own exhausted quota', () => {
  // The data already shows 8 minutes of failures: the first pass pages (for_s runs on the data's timeline).
  const paged = async (otherCalls: number) => {
    const r = await replay((c) => quotaCase(c.now, otherCalls).send(c), CASES_23.quota);
    await r.c.app.alerts.evaluate(r.c.now);
    const [firing] = await r.alerts('clients_degraded');
    return { ...r, firing };
  };

  it('pages within for_s as self_inflicted / quota, naming only the failing service, in its incident', async () => {
    const r = await paged(10);
    try {
      expect([r.verdict.verdict, r.verdict.hint]).toEqual(['self_inflicted', 'quota']);
      // Degraded as a whole, the key keeps its own verdict; its evidence still names the failing service (issue 36).
      expect(r.verdict.evidence[1]).toBe('services: billing-svc (self_inflicted / quota): 53% of 900 calls failed (quota 480); 1 other service healthy (other-svc)');
      expect(r.firing).toMatchObject({ state: 'firing', verdict: 'self_inflicted', hint: 'quota', severity: 'critical', value: 1, fired_at: r.c.now });
      // started_at: the start of the rule's 5-minute window, all of it failing on billing-svc's calls.
      expect(r.firing.fired_at - r.firing.started_at).toBe(300_000);
      expect(r.firing.summary).toBe(
        'clients failing over the last 5 min: billing-svc 100% of 300 calls failed (1 of 2 services calling the key) — probes fine from 2 locations: likely self-inflicted (quota)',
      );
      const incident = r.incidents.find((i: any) => i.cause.kind === 'service');
      expect(incident.title).toBe('billing-svc: 1 key, self-inflicted (quota)');
      expect(r.firing.group_key).toBe(incident.id);
    } finally {
      await r.c.close();
    }
  });

  it('pages even when the key\'s other caller dilutes its totals below the degraded threshold', async () => {
    const r = await paged(100);
    try {
      // The key says what its worst service says (issue 36): billing-svc's verdict, over the whole key's figures.
      expect([r.verdict.verdict, r.verdict.hint]).toEqual(['self_inflicted', 'quota']);
      expect(r.verdict.evidence[0]).toMatch(/^self_inflicted: billing-svc: 53% of 900 calls failed \(quota 480\); 1 other service healthy \(other-svc\)/);
      expect(r.verdict.clients.error_share).toBeLessThan(0.2);
      expect(r.firing).toMatchObject({ state: 'firing', verdict: 'self_inflicted', hint: 'quota' });
      expect(r.firing.summary).toBe(
        'clients failing over the last 5 min: billing-svc 100% of 300 calls failed (self_inflicted / quota) (1 of 2 services calling the key) — self_inflicted / quota on billing-svc',
      );
      const incident = r.incidents.find((i: any) => i.cause.kind === 'service');
      expect(incident).toMatchObject({ title: 'billing-svc: 1 key, self-inflicted (quota)', keys: [{ key: CASES_23.quota, verdict: 'self_inflicted', hint: 'quota' }] });
      expect(r.firing.group_key).toBe(incident.id);
    } finally {
      await r.c.close();
    }
  });
});

describe('an hour-long outage at the SDK\'s default cooldowns (5 s doubling to 20 s)', () => {
  it('never closes, so it is no flap, while open_share fires', async () => {
    let transitions: Awaited<ReturnType<typeof outageCase>>['transitions'] = [];
    const r = await replay(async (c) => {
      const o = await outageCase(c.now);
      transitions = o.transitions;
      await o.fleet.send(c);
    }, CASES_23.outage);
    try {
      // The fixture is a real breaker's life: one close → open, then open ⇄ half-open only.
      const opens = transitions.filter((t) => t.to === 'open');
      expect(opens.filter((t) => t.from === 'closed')).toHaveLength(2);
      expect(opens.filter((t) => t.from === 'half_open').length).toBeGreaterThan(300);
      expect(transitions.some((t) => t.to === 'closed' && t.from !== null)).toBe(false);
      await r.c.app.alerts.evaluate(r.c.now);
      expect(await r.alerts('flapping')).toEqual([]);
      expect((await r.alerts('open_share'))[0]).toMatchObject({ state: 'firing', verdict: 'provider_outage' });
    } finally {
      await r.c.close();
    }
  });
});

describe('a prober that went silent', () => {
  let r: Awaited<ReturnType<typeof replay>>;
  beforeAll(async () => {
    r = await replay((c) => silentCase(c.now).send(c), CASES_23.silent);
  });
  afterAll(() => r.c.close());

  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

  it('makes the key\'s probe side stale, naming each location and when it last probed', () => {
    const last = hhmm(r.c.now - 19 * MIN);
    expect([r.verdict.verdict, r.verdict.hint]).toEqual(['insufficient_data', 'probes_stale']);
    expect(r.verdict.evidence).toContain(
      `hint probes_stale: no probe in the window, but eu-west probed this key until ${last} UTC and us-east probed this key until ${last} UTC — the prober stopped (it died or hit its cost cap); the verdict waits for it to report again`,
    );
    explainsItself(r.verdict);
  });

  it('fires prober_silent per location, and resolves it when the location reports again', async () => {
    await r.c.app.alerts.evaluate(r.c.now - 5 * MIN);
    const silent = await r.alerts('prober_silent');
    expect(silent.map((a: any) => [a.location, a.state]).sort()).toEqual([['eu-west', 'firing'], ['us-east', 'firing']]);
    expect(silent[0].summary).toMatch(/^prober location (eu-west|us-east) silent for 13 min: last probed at \d\d:\d\d UTC \(1 key\), usually every 1 min/);
    for (const { location, events } of silentResumes(r.c.now - 4 * MIN, r.c.now)) await r.c.send({ service: 'prober', instance: location }, events);
    await r.c.app.alerts.evaluate(r.c.now);
    expect((await r.alerts('prober_silent')).map((a: any) => a.state)).toEqual(['resolved', 'resolved']);
  });
});

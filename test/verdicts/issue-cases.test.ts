/**
 * Issue 15's incidents replayed through the real ingest endpoint: each reads right, with
 * figures in its evidence that can be checked by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { CASES, NEWCOMER, PROBER_KEYS, fallbackCase, verdictCases } from './issue-cases.ts';
import { MIN, collector, probes, transition, windows, type TestCollector, verdictFor } from './support.ts';

describe('issue 15 cases through ingest and GET /api/verdicts', () => {
  let c: TestCollector;
  let verdicts: any[];
  const v = (k: BreakerKey) => verdictFor(verdicts, k);

  beforeAll(async () => {
    c = await collector();
    await verdictCases(c.now, { prober: true }).send(c);
    verdicts = (await c.get(`/api/verdicts?from=${c.now - 15 * MIN}&to=${c.now}`)).verdicts;
  });
  afterAll(() => c.close());

  it('does not call provider 5xx spread over services and instances self-inflicted, and states the probes\' power', () => {
    const e = v(CASES.spread5xx);
    expect([e.verdict, e.hint]).toEqual(['provider_suspected', 'probes_inconclusive']);
    expect(e.clients).toMatchObject({ services: 3, instances: 9, provider_error_share: 0.2 });
    expect(e.probe_power).toEqual({ failure_share: 0.2, location: 'eu-west', probes: 10, chance: 0.107, refutes: false });
    expect(e.evidence.join('\n')).toContain('10 probes from eu-west would all pass with chance 0.8^10 = 11%');
    expect(e.alternative.verdict).toBe('self_inflicted');
    expect(e.alternative.why).toMatch(/^no self-side signal: client-fault 0%, quota 0%, truncated 0% of failures .*retry ratio 0 .*degraded on all 3 services/);
  });

  it('calls the demo\'s bursty provider failures an intermittent provider outage when the probes caught them', () => {
    const e = v(CASES.flapping);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'intermittent']);
    expect(e.probes['eu-west']).toMatchObject({ status: 'ok', probes: 40, error: 8 });
    expect(e.evidence).toContain(
      'hint intermittent: the probes failed 16 of 80 in the window (20% ≥ 10%) while their latest are ok: the provider fails in bursts — fail over, not our code',
    );
    expect(e.alternative).toMatchObject({ verdict: 'self_inflicted' });
  });

  it('sets a prober location that lost its network aside, flags it, and keeps the keys healthy', async () => {
    for (const key of PROBER_KEYS) {
      const e = v(key);
      expect([e.verdict, e.hint], key.model).toEqual(['healthy', null]);
      expect(e.probes['ap-south']).toMatchObject({ status: 'failing', set_aside: true });
      expect(e.evidence.join('\n')).toContain('probes from ap-south set aside: prober location ap-south is unhealthy: 6 of 6 keys failing across 4 providers (anthropic, mistral, openai, together), 100% of its recent failed probes network/timeout');
    }
    const probesView = await c.get(`/api/probes?from=${c.now - 15 * MIN}&to=${c.now}`);
    const ap = probesView.locations.find((l: any) => l.location === 'ap-south');
    expect(ap.health).toMatchObject({ status: 'unhealthy', keys: 6, failing_keys: 6, failing_providers: ['anthropic', 'mistral', 'openai', 'together'], network_share: 1 });
    expect(ap.targets.every((t: any) => t.figures.set_aside)).toBe(true);
    const eu = probesView.locations.find((l: any) => l.location === 'eu-west');
    expect(eu.health.status).toBe('healthy');
  });

  it('tells whoever runs the prober with one alert, instead of a probe alert per key', async () => {
    await c.app.alerts.evaluate(c.now);
    const { alerts } = await c.get('/api/alerts');
    const prober = alerts.filter((a: any) => a.rule === 'prober_unhealthy');
    expect(prober).toHaveLength(1);
    expect(prober[0]).toMatchObject({ location: 'ap-south', state: 'firing', value: 6 });
    expect(prober[0].summary).toMatch(/^prober location ap-south is unhealthy: 6 of 6 keys failing across 4 providers/);
    expect(alerts.filter((a: any) => a.rule === 'probe_failing' && a.location === 'ap-south')).toEqual([]);
    // The fallback's probes from healthy locations still page about the fallback.
    expect(alerts.some((a: any) => a.rule === 'probe_failing' && a.key.model === CASES.fallback.model)).toBe(true);
  });

  it('gives a fallback nobody calls a probe-only outage verdict', () => {
    const e = v(CASES.fallback);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'probe_only']);
    expect(e.clients.calls).toBe(0);
    expect(e.evidence).toContain('probes: 0 of 20 recent ok from eu-west and us-east');
    expect(e.evidence.join('\n')).toContain('no client traffic seen in the window');
  });

  it('lets failing probes decide when a fallback has seen only its first few calls', () => {
    const e = v(CASES.fallbackFew);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'low_volume']);
    expect(e.clients.calls).toBe(3);
    expect(e.alternative.why).toBe('only 3 calls (fewer than 20), but 0 of 20 recent probes ok from eu-west and us-east — the probes alone are enough to call it');
  });

  it('hints truncation when answers cut by max_tokens dominate', () => {
    const e = v(CASES.truncated);
    expect([e.verdict, e.hint]).toEqual(['self_inflicted', 'truncation']);
    expect(e.evidence.join('\n')).toContain('hint truncation: 100% of failures (540 of 900 calls) are answers cut by their token limit');
    expect(e.alternative.why).toContain('20 of 20 recent probes ok from eu-west and us-east, and provider-side classes are only 0% of calls');
  });

  it('names the near match when a host:port key meets no probes, and shows the probed key as probe-only', () => {
    const e = v(CASES.hostPort);
    expect([e.verdict, e.hint]).toEqual(['insufficient_data', 'no_probes']);
    expect(e.near_matches).toEqual([CASES.hostPortProbed]);
    expect(e.evidence.join('\n')).toContain('"provider_aliases": {"10.1.2.3:8000": "vllm"}');
    expect(v(CASES.hostPortProbed)).toMatchObject({ verdict: 'healthy', hint: 'probe_only' });
  });

  it('says why not the other answer in every verdict', () => {
    for (const e of verdicts) {
      expect(e.alternative.verdict).not.toBe(e.verdict);
      expect(e.evidence.at(-1)).toBe(`why not ${e.alternative.verdict}: ${e.alternative.why}`);
      expect(e.alternative.why).not.toMatch(/from ,|from $| of 0 recent/);
    }
  });

  it('never gives a self-inflicted verdict without a hint', () => {
    const self = verdicts.filter((e) => e.verdict === 'self_inflicted');
    expect(self.length).toBeGreaterThan(0);
    for (const e of self) expect(e.hint).not.toBeNull();
  });

  it('groups the failing keys into incidents by cause', async () => {
    const { incidents } = await c.get(`/api/incidents?from=${c.now - 15 * MIN}&to=${c.now}`);
    const titles = incidents.map((i: any) => i.title);
    expect(titles).toContain('ap-south: 6 keys, prober unhealthy');
    expect(titles).toContain('anthropic: claude-3-5-haiku@20241022, provider outage (intermittent)');
    expect(titles).toContain('together: Qwen/Qwen2.5-7B-Instruct:fallback, provider outage (probe_only)');
    expect(titles).toContain('openai: gpt-4o@2024-08-06, provider suspected (probes did not confirm) (probes_inconclusive)');
    expect(titles).toContain('ticket-drafts: 1 key, self-inflicted (truncation)');
    const prober = incidents.find((i: any) => i.cause.kind === 'prober');
    expect(prober.keys.map((k: any) => k.key.model).sort()).toEqual(PROBER_KEYS.map((k) => k.model).sort());
    expect(prober.evidence[0]).toMatch(/^prober location ap-south is unhealthy: 6 of 6 keys failing across 4 providers/);
    for (const i of incidents) expect(i.id).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('provider aliases join a host:port key with its probes', () => {
  it('joins them and shows one verdict', async () => {
    const c = await collector({ config: { verdicts: { provider_aliases: { '10.1.2.3:8000': 'vllm' } } } });
    try {
      const from = c.now - 15 * MIN;
      await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, windows(CASES.hostPort, from, c.now, { calls: 10, errors: { server: 5 } }));
      for (const location of ['eu-west', 'us-east']) {
        await c.send({ service: 'prober', instance: location }, probes(CASES.hostPortProbed, location, from, c.now, 'error', { error_class: 'server', status: 503 }));
      }
      const { verdicts } = await c.get(`/api/verdicts?from=${from}&to=${c.now}`);
      expect(verdicts).toHaveLength(1);
      expect(verdicts[0]).toMatchObject({ key: CASES.hostPort, verdict: 'provider_outage', hint: null, joined: [CASES.hostPortProbed] });
      expect(verdicts[0].evidence).toContain('probes joined from vllm/chat/meta-llama/Llama-3.1-8B-Instruct through the provider alias 10.1.2.3:8000 → vllm');
    } finally {
      await c.close();
    }
  });
});

describe('fallback_failing fires for the key whose chain failed', () => {
  const firing = async (keyed: boolean) => {
    const c = await collector();
    try {
      await fallbackCase(c.now, keyed).send(c);
      await c.app.alerts.evaluate(c.now);
      const { alerts } = await c.get('/api/alerts');
      return alerts.filter((a: any) => a.rule === 'fallback_failing' && a.state === 'firing').map((a: any) => a.key.model).sort();
    } finally {
      await c.close();
    }
  };

  it('with tasks that carry their primary key: only that key', async () => {
    expect(await firing(true)).toEqual([NEWCOMER.withChainFailing.model]);
  });

  it('with older senders: only the keys whose config lists fallbacks', async () => {
    expect(await firing(false)).toEqual([NEWCOMER.withChainFailing.model, NEWCOMER.withChainFine.model].sort());
  });
});

describe('an alert summary while an outage is ending', () => {
  it('names the locations that recovered, never an empty list', async () => {
    const c = await collector();
    try {
      const K = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514', region: 'eu' };
      const from = c.now - 15 * MIN;
      const recovered = c.now - 3 * MIN;
      await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [
        transition(K, from - MIN, null, 'closed', 'created'),
        ...windows(K, from, recovered, { calls: 10, errors: { server: 4 } }),
        ...windows(K, recovered, c.now, { calls: 10 }),
        transition(K, from + MIN, 'closed', 'open'),
        transition(K, recovered, 'open', 'closed', 'probes_succeeded'),
      ]);
      for (const location of ['eu-west', 'us-east']) {
        await c.send({ service: 'prober', instance: location }, [
          ...probes(K, location, from, recovered, 'error', { error_class: 'server', status: 503 }),
          ...probes(K, location, from + 30_000, recovered, 'error', { error_class: 'server', status: 503 }),
          ...[0, 15_000, 30_000, 45_000].flatMap((o) => probes(K, location, recovered + o, c.now, 'ok')),
        ]);
      }
      await c.app.alerts.evaluate(c.now);
      const [alert] = (await c.get('/api/alerts')).alerts.filter((a: any) => a.rule === 'open_share');
      expect(alert.summary).toBe(
        'open 73% of the last 15 min (closed on all 1) — probes failed for most of the window from eu-west and us-east and are recovering: likely provider outage, ending',
      );
    } finally {
      await c.close();
    }
  });
});

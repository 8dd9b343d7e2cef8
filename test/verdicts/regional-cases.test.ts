/**
 * Issue 36, `regional` only when locations really disagree: the cases of regional-cases.ts
 * through the real ingest endpoint, read back from /api/verdicts, /api/incidents and
 * /api/alerts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { REGIONAL, regionalCases } from './regional-cases.ts';
import { MIN, collector, type TestCollector, sameKey, verdictFor } from './support.ts';

describe('regional only beyond chance: replays through ingest', () => {
  let c: TestCollector;
  let verdicts: any[];
  const v = (k: BreakerKey) => verdictFor(verdicts, k);

  beforeAll(async () => {
    c = await collector();
    await regionalCases(c.now).send(c);
    verdicts = (await c.get(`/api/verdicts?from=${c.now - 15 * MIN}&to=${c.now}`)).verdicts;
  });
  afterAll(() => c.close());

  it('reads 50% random 529s split 6/4 of 10 over two locations as an intermittent provider outage, not regional (anthropic messages)', () => {
    const e = v(REGIONAL.anthropicTwo);
    // The statuses still split, as before: the test, not the status, decides.
    expect([e.probes['eu-west'].status, e.probes['us-east'].status]).toEqual(['failing', 'ok']);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'intermittent']);
    expect(e.evidence).toContain(
      "probe locations do not differ beyond chance: 6 of 10 recent failed from eu-west, 4 of 10 recent failed from us-east (Fisher's exact test p = 0.66 > 0.01) — the provider fails at random across locations, not in one region",
    );
    expect(e.evidence).toContain(
      'hint intermittent: the probes failed 10 of 20 recent from eu-west and us-east (50%), no location beyond chance more than another (p = 0.66 > 0.01): the provider fails at random everywhere, not in one region — another region will not help; fail over to another provider or wait, not our code',
    );
    expect(e.evidence.join('\n')).not.toMatch(/hint regional|down in one region|another region or provider/);
    expect(e.alternative.why).toContain('failed 10 of 20 recent, from every location alike (eu-west and us-east) (50%)');
  });

  it('reads the same over three locations (6, 4 and 5 of 10) as intermittent (anthropic messages)', () => {
    const e = v(REGIONAL.anthropicThree);
    expect(e.probes['ap-south'].status).toBe('ok');
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'intermittent']);
    expect(e.evidence).toContain(
      "probe locations do not differ beyond chance: 6 of 10 recent failed from eu-west, 9 of 20 recent failed from ap-south and us-east (Fisher's exact test p = 0.7 > 0.01) — the provider fails at random across locations, not in one region",
    );
  });

  it('reads 50% random 503 overloaded over two and three locations as intermittent too (openai chat)', () => {
    for (const key of [REGIONAL.openaiTwo, REGIONAL.openaiThree]) {
      const e = v(key);
      expect(e.probes['eu-west'].status, key.model).toBe('failing');
      expect([e.verdict, e.hint], key.model).toEqual(['provider_outage', 'intermittent']);
      expect(e.evidence.join('\n'), key.model).toContain('probe locations do not differ beyond chance');
    }
  });

  it('still reads a true regional outage as regional: every probe failing from eu-west, none from us-east (mistral chat, clients failing)', () => {
    const e = v(REGIONAL.mistralEu);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'regional']);
    expect(e.evidence[0]).toBe('provider_outage: clients degraded and probes failing from some locations only, beyond chance: the provider is down in one region — fail over to another region or provider');
    expect(e.evidence).toContain("probe locations differ beyond chance: 10 of 10 recent failed from eu-west, 0 of 10 recent failed from us-east (Fisher's exact test p = 1.1e-5 ≤ 0.01)");
    expect(e.evidence).toContain('hint regional: probes failing from eu-west, fine from us-east, beyond chance (p = 1.1e-5 ≤ 0.01)');
  });

  it('still reads timeouts from one of three locations (9 of 10 there, 1 of 20 elsewhere) as regional while the clients are fine (gemini)', () => {
    const e = v(REGIONAL.geminiAp);
    expect([e.verdict, e.hint]).toEqual(['provider_degraded', 'regional']);
    expect(e.evidence).toContain('hint regional: probes failing from ap-south, fine from eu-west and us-east, beyond chance (p = 6.7e-6 ≤ 0.01)');
    expect(e.alternative.verdict).toBe('healthy');
  });

  it('reads an outage begun three probes ago in eu-west as regional: the test counts the latest probes its status rests on, not the 7 good ones before', () => {
    const e = v(REGIONAL.togetherOnset);
    expect(e.probes['eu-west']).toMatchObject({ status: 'failing', recent: { probes: 10, failed: 3 } });
    expect([e.verdict, e.hint]).toEqual(['provider_degraded', 'regional']);
    expect(e.evidence).toContain(
      "probe locations differ beyond chance: 3 of 3 recent failed from eu-west (eu-west on the latest probes, which set its status), 0 of 10 recent failed from us-east (Fisher's exact test p = 0.0035 ≤ 0.01)",
    );
  });

  it('says too few probes to tell when 3 failed from one location and 3 passed from another, instead of claiming a region', () => {
    const e = v(REGIONAL.fewProbes);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'regional_unconfirmed']);
    expect(e.evidence).toContain(
      "too few probes to tell a region from chance: 3 of 3 recent failed from eu-west, 0 of 3 recent failed from us-east (Fisher's exact test p = 0.1; even every probe failing from one side and none from the other would give p = 0.1 > 0.01)",
    );
    expect(e.evidence.join('\n')).toContain('hint regional_unconfirmed: probes failing from eu-west, fine from us-east, but too few (3 and 3 recent) to tell a region from chance');
  });

  it('groups the random-failure keys into their provider incidents with the intermittent hint, and pages for them', async () => {
    const { incidents } = await c.get(`/api/incidents?from=${c.now - 15 * MIN}&to=${c.now}`);
    const anthropic = incidents.find((i: any) => i.cause.kind === 'provider' && i.cause.name === 'anthropic');
    expect(anthropic).toMatchObject({ verdict: 'provider_outage', hint: 'intermittent' });
    expect(anthropic.title).toBe('anthropic: 2 models, provider outage (intermittent)');
    const mistral = incidents.find((i: any) => i.cause.kind === 'provider' && i.cause.name === 'mistral');
    expect(mistral).toMatchObject({ verdict: 'provider_outage', hint: 'regional' });
    await c.app.alerts.evaluate(c.now);
    const { alerts } = await c.get('/api/alerts');
    const paged = alerts.filter((a: any) => a.rule === 'clients_degraded' && sameKey(a.key, REGIONAL.anthropicTwo));
    expect(paged.length).toBe(1);
  });
});

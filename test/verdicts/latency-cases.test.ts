/**
 * Issue 36, "latency is evidence", replayed through the real ingest endpoint: a provider that
 * slows from ~1 s to 8–20 s without an error reads as the provider's (hint `slow`), from
 * every location or from one; slow clients with probes at their usual latency stay a
 * question about our side (`traffic_shape`); and no sentence speaks of errors that did not happen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { LATENCY_CASES, ONSET_BEFORE_END } from './latency-cases.ts';
import { latencyCases } from './latency-cases.ts';
import { MIN, collector, type TestCollector, sameKey, verdictFor } from './support.ts';

/** Words that claim an error or a failure class: none may appear where no call and no probe failed. */
const ERROR_CLAIMS = /\berrors?\b|provider-side|failure class|of failures|calls? failed|clients fail\b|probes? fail(ed|ing)?\b|\bfail (?!over)/i;

describe('issue 36: latency is evidence (replays through ingest and GET /api/verdicts)', () => {
  let c: TestCollector;
  let verdicts: any[];
  const v = (k: BreakerKey) => verdictFor(verdicts, k);
  /** Every sentence a verdict shows: its evidence and why not its alternative. */
  const said = (k: BreakerKey) => [...v(k).evidence, v(k).alternative.why];

  beforeAll(async () => {
    c = await collector();
    await latencyCases(c.now).send(c);
    // The suspicion trigger, as it runs in production (every second; here every 10 s of the
    // incident): a suspicion per key when its breakers have been open `min_open_s`, again
    // after each `cooldown_s` while they stay degraded.
    const opened: number[] = [];
    for (let at = c.now - ONSET_BEFORE_END; at <= c.now; at += 10_000) opened.push(...(await c.app.suspicion.evaluate(at)).opened.map((s) => s.triggeredAt));
    expect(opened.length).toBeGreaterThanOrEqual(2 * Object.keys(LATENCY_CASES).length);
    verdicts = (await c.get(`/api/verdicts?from=${c.now - 15 * MIN}&to=${c.now}`)).verdicts;
  }, 60_000);
  afterAll(() => c.close());

  it.each([
    ['openai chat', LATENCY_CASES.openai],
    ['gemini generate', LATENCY_CASES.gemini],
  ])('calls a provider slowing without errors, probes ten times their baseline from both locations, a provider outage (slow) on %s', (_, key) => {
    const e = v(key);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'slow']);
    expect(e.clients).toMatchObject({ failed: 0, slow_share: 0.28, rejection_share: 0.2958, services: 3, instances: 6 });
    for (const location of ['eu-west', 'us-east']) {
      expect(e.probes[location]).toMatchObject({ status: 'ok', error: 0, latency_ms: { p50: 6875 }, baseline: { p50: 750, probes: 360, lookback_s: 86_400, client_ceiling_ms: 5000 } });
    }
    expect(e.evidence[0]).toBe('provider_outage: clients slow and the probes answering far slower than their baseline from every location: the provider is slow — fail over, wait it out');
    const hint = e.evidence.find((s: string) => s.startsWith('hint slow:'));
    expect(hint).toBe(
      "hint slow: probes answer from eu-west in 6.9 s p50 against 0.8 s over the previous 24 h (9.2×, 360 probes), over the clients' 5 s ceiling, " +
        "from us-east in 6.9 s p50 against 0.8 s (9.2×, 360 probes), over the clients' 5 s ceiling; " +
        "the clients' calls take 1.6 s p50, 15.7 s p95; 28% slow over their 5 s ceiling; 504 bulkhead rejections (30% of attempts); 6 breaker opens on slow_calls " +
        '— the provider is slow, not failing: fail over, tell the provider',
    );
    expect(e.alternative.verdict).toBe('self_inflicted');
    expect(e.alternative.why).toMatch(/^the probes, which share none of our code, are slow too: from eu-west in 6\.9 s p50/);
  });

  it('calls probes slow from eu-west only, at their baseline from us-east, a provider degradation (slow) naming the location', () => {
    const e = v(LATENCY_CASES.oneLocation);
    expect([e.verdict, e.hint]).toEqual(['provider_degraded', 'slow']);
    expect(e.probes['us-east']).toMatchObject({ status: 'ok', latency_ms: { p50: 750 }, baseline: { p50: 750, probes: 360 } });
    expect(e.evidence[0]).toMatch(/^provider_degraded: clients slow and the probes answering far slower than their baseline from some locations/);
    const hint = e.evidence.find((s: string) => s.startsWith('hint slow:'));
    expect(hint).toContain('probes answer from eu-west in 6.9 s p50 against 0.8 s over the previous 24 h (9.2×, 360 probes)');
    expect(hint).toContain('probes answer from us-east in 0.8 s p50 against 0.8 s over the previous 24 h (1×, 360 probes) — their usual latency');
    expect(hint).toContain('the provider is slow from eu-west only, not failing: fail over to another region or provider');
  });

  it('judges probes over the latency ceiling the clients declare as slow when the key has no probe history to compare with', () => {
    const e = v(LATENCY_CASES.ceilingOnly);
    expect([e.verdict, e.hint]).toEqual(['provider_outage', 'slow']);
    expect(e.probes['eu-west'].baseline).toEqual({ p50: null, probes: 0, lookback_s: 86_400, client_ceiling_ms: 5000 });
    expect(e.evidence.find((s: string) => s.startsWith('hint slow:'))).toContain("from eu-west in 6.9 s p50 (no baseline: 0 probes before the window), over the clients' 5 s ceiling");
  });

  it('keeps clients slow while the probes answer at their usual latency a question about our side (traffic_shape)', () => {
    const e = v(LATENCY_CASES.probesFast);
    expect([e.verdict, e.hint]).toEqual(['provider_suspected', 'traffic_shape']);
    expect(e.probes['eu-west'].baseline).toMatchObject({ p50: 750, probes: 360 });
    expect(e.evidence[0]).toBe("provider_suspected: clients slow or shedding while the probes answer at their usual latency: our requests' shape or our network path, or a provider slow only on requests like ours");
    expect(e.evidence.find((s: string) => s.startsWith('hint traffic_shape:'))).toMatch(
      /^hint traffic_shape: probes answer from eu-west in 0\.8 s p50 against 0\.8 s over the previous 24 h \(1×, 360 probes\), from us-east in 0\.8 s p50 .* — at their usual latency — while the clients' calls take 1\.6 s p50, 15\.7 s p95; .* the slowness is in requests shaped like ours .* or in our network path to it — look at our side first/,
    );
  });

  it('says it cannot tell when the probes have no baseline and answer under the ceiling, without speaking of errors', () => {
    const e = v(LATENCY_CASES.noBaseline);
    expect([e.verdict, e.hint]).toEqual(['provider_suspected', 'probes_inconclusive']);
    expect(e.evidence[0]).toBe('provider_suspected: clients slow or shedding with no failed call, and nothing to tell whether the provider is slower than usual; nothing points at our side — fail over, tell the provider');
    expect(e.evidence.find((s: string) => s.startsWith('hint probes_inconclusive:'))).toContain(
      'no call failed, so there is no provider-side error for the probes to confirm, and the probes from eu-west and us-east have no baseline to compare with (0 and 0 probes before the window, 30 needed)',
    );
  });

  it('never speaks of errors in the evidence of slow-only data', () => {
    for (const key of [LATENCY_CASES.openai, LATENCY_CASES.gemini, LATENCY_CASES.oneLocation, LATENCY_CASES.ceilingOnly, LATENCY_CASES.probesFast]) {
      expect(v(key).clients.failed, key.model).toBe(0);
      for (const sentence of said(key)) expect(sentence, key.model).not.toMatch(ERROR_CLAIMS);
    }
    // The no-baseline hint names the missing kind of evidence once, as absent: nothing else may.
    for (const sentence of said(LATENCY_CASES.noBaseline).filter((s) => !s.startsWith('hint probes_inconclusive:'))) expect(sentence).not.toMatch(ERROR_CLAIMS);
  });

  it('pages the slow provider with a summary of slowness, and groups it as a provider incident', async () => {
    await c.app.alerts.evaluate(c.now);
    const { alerts } = await c.get('/api/alerts');
    const page = alerts.find((a: any) => a.rule === 'clients_degraded' && sameKey(a.key, LATENCY_CASES.openai));
    expect(page).toBeDefined();
    expect(page.summary).toContain('clients slow over the last 5 min: 100% of 54 calls slow, none failed');
    expect(page.summary).toContain('probes far slower than their baseline from eu-west and us-east, clients slow or shedding: likely provider outage (slow)');
    expect(page.summary).not.toMatch(ERROR_CLAIMS);
    const degraded = alerts.find((a: any) => a.rule === 'clients_degraded' && sameKey(a.key, LATENCY_CASES.oneLocation));
    expect(degraded?.summary).toContain('probes far slower than their baseline from eu-west, at their usual latency from 1 location, clients slow or shedding: provider degraded (slow)');
    const { incidents } = await c.get(`/api/incidents?from=${c.now - 15 * MIN}&to=${c.now}`);
    const openai = incidents.find((i: any) => i.cause.kind === 'provider' && i.cause.name === 'openai');
    expect(openai.keys.find((k: any) => sameKey(k.key, LATENCY_CASES.openai))).toMatchObject({ verdict: 'provider_outage', hint: 'slow' });
  });
});

/**
 * How the alert rules and verdicts treat `wrong_answer` probes (issue 39; docs/alerts.md,
 * "Wrong answers"): `probe_failing` counts them as failed probes of the location (three in
 * a row page, one odd answer does not), while the probe status stays transport-healthy, so
 * no outage verdict rests on them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, type TestCollector } from '../verdicts/support.ts';

const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1-nano' };
let c: TestCollector;
beforeEach(async () => {
  c = await collector();
});
afterEach(() => c.close());

const probe = (ts: number, location: string, outcome: ProbeEvent['outcome']): ProbeEvent => ({
  type: 'probe', ts, key: KEY, location, outcome, latency_ms: { total: 300 }, status: 200,
  ...(outcome === 'wrong_answer' ? { answer_excerpt: '41', message: 'expected text matching /^42$/, got text that does not match' } : {}),
});

describe('wrong answers in the alert rules', () => {
  it('three wrong answers in a row from a location fire probe_failing naming them; the verdict is no outage', async () => {
    const ago = (m: number) => c.now - m * MIN;
    await c.send({ service: 'prober', instance: 'p' }, [
      probe(ago(6), 'eu-west', 'ok'), probe(ago(5), 'eu-west', 'ok'),
      probe(ago(3), 'eu-west', 'wrong_answer'), probe(ago(2), 'eu-west', 'wrong_answer'), probe(ago(1), 'eu-west', 'wrong_answer'),
      // Another location, one odd answer between right ones: no page.
      probe(ago(3), 'us-east', 'ok'), probe(ago(2), 'us-east', 'wrong_answer'), probe(ago(1), 'us-east', 'ok'),
    ]);
    await c.app.alerts.evaluate(c.now);
    const alerts = (await c.get('/api/alerts')).alerts.filter((a: any) => a.rule === 'probe_failing');
    expect(alerts.map((a: any) => [a.location, a.state, a.value])).toEqual([['eu-west', 'firing', 3]]);
    expect(alerts[0].summary).toMatch(/^probe from eu-west failed 3 times in a row \(last: wrong_answer 200\) — /);

    const detail = await c.get(`/api/key?${keyQuery(KEY)}&window=15m&to=${c.now}`);
    expect(detail.probes['eu-west']).toMatchObject({ probes: 5, ok: 2, wrong_answer: 3, error: 0, status: 'ok' });
    expect(detail.verdict).not.toMatch(/^provider_/);
  });
});

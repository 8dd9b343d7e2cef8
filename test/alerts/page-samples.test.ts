/**
 * A page carries evidence: the latest failed calls of the alert's key, each with the
 * provider's request id, time, status and who saw it — in the webhook body, the Slack text,
 * PagerDuty custom details and Alertmanager annotations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, CallSample, ProbeEvent } from '@breakerbox/protocol';
import { MIN, collector, windows, type TestCollector } from '../verdicts/support.ts';
import { receiver, type Receiver } from './receiver.ts';
import { PAGE_SAMPLES } from '../../server/alerts/page-samples.ts';

const KEY: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-20241022' };

let c: TestCollector;
let r: Record<'hook' | 'slack' | 'pd' | 'am', Receiver>;
let base: number;
const at = (m: number) => base + m * MIN;

beforeAll(async () => {
  r = { hook: await receiver(), slack: await receiver(), pd: await receiver(() => ({ status: 202 })), am: await receiver() };
  const common = { min_severity: 'info', retries: 0 };
  c = await collector({
    config: {
      alerts: { external_url: 'https://breakerbox.example' },
      notifiers: [
        { name: 'hook', type: 'webhook', url: `${r.hook.url}/hook`, ...common },
        { name: 'slack', type: 'slack', url: `${r.slack.url}/services/T/B/x`, ...common },
        { name: 'pd', type: 'pagerduty', url: `${r.pd.url}/v2/enqueue`, routing_key: 'rk', ...common },
        { name: 'am', type: 'alertmanager', url: r.am.url, ...common },
      ],
    },
  });
  base = c.now - 30 * MIN;
  const probe = (m: number): ProbeEvent => ({ type: 'probe', ts: at(m), key: KEY, location: 'eu-west', outcome: 'error', error_class: 'server', status: 529, latency_ms: { total: 300 } });
  await c.send({ service: 'prober', instance: 'eu' }, [probe(1), probe(2), probe(3)]);
  const [w] = windows(KEY, at(3), at(3) + 10_000, { calls: 10, errors: { server: 4 } });
  const sample = (s: number, id: string, over: Partial<CallSample> = {}): CallSample => ({
    ts: at(3) + s * 1000, outcome: 'error', error_class: 'server', status: 529, error_type: 'overloaded_error', upstream_request_id: id, attempt: 1, duration_ms: 700, ...over,
  });
  w!.samples = [sample(1, 'req_011AAA'), sample(2, 'req_011BBB'), sample(3, 'req_slow', { outcome: 'slow', error_class: undefined, status: undefined }), sample(4, 'req_011CCC'), sample(5, 'req_011DDD')];
  await c.send({ service: 'drafts', instance: 'pod-3' }, [w!]);
});
afterAll(async () => {
  await c.close();
  await Promise.all(Object.values(r).map((x) => x.close()));
});

describe('pages carry samples of failed calls', () => {
  it('sends the latest failed calls with request id, time, status and source to every kind of notifier', async () => {
    const result = await c.app.alerts.evaluate(at(4));
    expect(result.firing).toBeGreaterThanOrEqual(1);
    await Promise.all(Object.values(r).map((x) => x.waitFor(1)));

    const hook = r.hook.received[0]!.body;
    expect(hook.samples).toHaveLength(PAGE_SAMPLES);
    expect(hook.samples.map((s: { upstream_request_id: string }) => s.upstream_request_id)).toEqual(['req_011DDD', 'req_011CCC', 'req_011BBB']);
    expect(hook.samples[0]).toEqual({
      at: new Date(at(3) + 5_000).toISOString(), status: 529, error_class: 'server', provider_error: 'overloaded_error', upstream_request_id: 'req_011DDD', from: 'drafts/pod-3',
    });
    const line = `529 overloaded_error, request id req_011DDD, ${new Date(at(3) + 5_000).toISOString().replace('.000Z', 'Z')} from drafts/pod-3`;
    expect(JSON.stringify(r.slack.received[0]!.body.blocks)).toContain(line);
    expect(r.pd.received[0]!.body.payload.custom_details.samples[0]).toBe(line);
    expect(r.am.received[0]!.body[0].annotations.samples.split('\n')[0]).toBe(line);
    expect(JSON.stringify(hook)).not.toContain('req_slow');
  });
});

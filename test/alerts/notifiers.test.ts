import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, ProbeEvent } from '@breakerbox/protocol';
import { MIN, collector, type TestCollector } from '../verdicts/support.ts';
import { startAlertmanager, type RealAlertmanager } from './alertmanager.ts';
import { receiver, type Receiver } from './receiver.ts';

const KP: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022:beta/x', region: 'eu' };
const SECRETS = ['XXXXsecret', 'R0UT1NGKEY-secret', 'hook-secret-xyz'];

let c: TestCollector;
let r: Record<'slack' | 'pd' | 'flaky' | 'bad' | 'hang' | 'good' | 'amSchema', Receiver>;
let am: RealAlertmanager | null;
let base: number;
const at = (m: number) => base + m * MIN;
const deliveries = async (notifier: string) => (await c.get(`/api/notifications?notifier=${notifier}`)).deliveries;

/** Checks a body against the Alertmanager v2 postableAlerts schema; returns the problems. */
function postableAlertProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!Array.isArray(body) || body.length === 0) return ['body must be a non-empty array'];
  for (const a of body as Record<string, unknown>[]) {
    const labels = a.labels as Record<string, unknown> | undefined;
    if (!labels || typeof labels !== 'object' || Object.keys(labels).length === 0) problems.push('labels must be a non-empty object');
    for (const [k, v] of Object.entries(labels ?? {})) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(k)) problems.push(`bad label name ${k}`);
      if (typeof v !== 'string') problems.push(`label ${k} must be a string`);
    }
    for (const [k, v] of Object.entries((a.annotations as object) ?? {})) if (typeof v !== 'string') problems.push(`annotation ${k} must be a string`);
    for (const f of ['startsAt', 'endsAt']) if (Number.isNaN(Date.parse(a[f] as string))) problems.push(`${f} must be a date-time`);
    if (typeof a.generatorURL !== 'string' || !/^https?:\/\//.test(a.generatorURL)) problems.push('generatorURL must be a URL');
    for (const k of Object.keys(a)) if (!['labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL'].includes(k)) problems.push(`unknown field ${k}`);
  }
  return problems;
}

beforeAll(async () => {
  r = {
    slack: await receiver(() => ({ status: 200, body: 'ok' })),
    pd: await receiver(() => ({ status: 202, body: { status: 'success', message: 'Event processed' } })),
    flaky: await receiver((_req, i) => ({ status: i === 0 ? 503 : 200 })),
    bad: await receiver(() => ({ status: 400, body: { error: 'no' } })),
    hang: await receiver(() => null),
    good: await receiver(),
    amSchema: await receiver((req) => (postableAlertProblems(req.body).length ? { status: 400 } : { status: 200 })),
  };
  am = await startAlertmanager();
  const common = { min_severity: 'info', retries: 2, backoff_ms: 10 };
  c = await collector({
    config: {
      alerts: { external_url: 'https://breakerbox.example' },
      notifiers: [
        { name: 'slack', type: 'slack', url: `${r.slack.url}/services/T000/B000/XXXXsecret`, ...common },
        { name: 'pd', type: 'pagerduty', url: `${r.pd.url}/v2/enqueue`, routing_key: 'R0UT1NGKEY-secret', ...common },
        { name: 'flaky', type: 'webhook', url: `${r.flaky.url}/hook`, ...common },
        { name: 'bad', type: 'webhook', url: `${r.bad.url}/hook`, ...common },
        { name: 'hang', type: 'webhook', url: `${r.hang.url}/hook`, headers: { authorization: 'Bearer hook-secret-xyz' }, timeout_ms: 3000, retries: 0, min_severity: 'info' },
        { name: 'good', type: 'webhook', url: `${r.good.url}/hook`, ...common },
        { name: 'am', type: 'alertmanager', url: am?.url ?? r.amSchema.url, ...common },
      ],
    },
  });
  base = c.now - 30 * MIN;
  const probe = (m: number, outcome: ProbeEvent['outcome']): ProbeEvent => ({
    type: 'probe', ts: at(m), key: KP, location: 'eu-west', outcome, latency_ms: { total: 300 },
    ...(outcome === 'error' ? { error_class: 'server', status: 503 } : {}),
  });
  await c.send({ service: 'prober', instance: 'eu' }, [probe(1, 'error'), probe(2, 'error'), probe(3, 'error'), probe(5, 'ok'), probe(6, 'ok')]);
});
afterAll(async () => {
  await c.close();
  await Promise.all(Object.values(r).map((x) => x.close()));
  await am?.close();
});

describe('notifiers', () => {
  it('evaluates and delivers to every other notifier while one hangs', async () => {
    const result = await c.app.alerts.evaluate(at(4));
    expect(result).toMatchObject({ firing: 1, notifications: 7 });
    await Promise.all([r.slack, r.pd, r.good, r.bad].map((x) => x.waitFor(1)));
    await r.flaky.waitFor(2);
    await r.hang.waitFor(1);
    expect((await deliveries('good'))[0]).toMatchObject({ status: 'ok', event: 'firing', rule: 'probe_failing' });
    expect((await deliveries('hang'))[0]).toMatchObject({ status: 'pending' });
    // Another pass while the hanging delivery is in flight neither waits for it nor queues it again.
    expect((await c.app.alerts.evaluate(at(4.5))).notifications).toBe(0);
    await c.app.alerts.idle();
    expect((await deliveries('hang'))[0]).toMatchObject({ status: 'failed', attempts: 1, error: 'timed out after 3000 ms' });
  });

  it('retries 5xx with backoff and gives up at once on other 4xx', async () => {
    expect((await deliveries('flaky'))[0]).toMatchObject({ status: 'ok', attempts: 2, http_status: 200 });
    expect(r.flaky.received).toHaveLength(2);
    expect((await deliveries('bad'))[0]).toMatchObject({ status: 'failed', attempts: 1, http_status: 400 });
    expect(r.bad.received).toHaveLength(1);
  });

  it('sends a Slack-compatible text with the incident, its alerts and its link', async () => {
    const body = r.slack.received[0]!.body;
    expect(r.slack.received[0]!.path).toBe('/services/T000/B000/XXXXsecret');
    // The key has probes and no client traffic: a probe-only outage, its own incident.
    const [incident] = (await c.get(`/api/incidents?from=${at(0)}&to=${at(4)}`)).incidents;
    expect(incident.title).toBe(`anthropic: ${KP.model}, provider outage (probe_only)`);
    expect(body.text).toMatch(/^\[FIRING\] warning anthropic: claude-3-5-haiku@20241022:beta\/x, provider outage \(probe_only\) — 1 alert\n/);
    expect(body.text).toContain('• probe_failing — anthropic/messages/claude-3-5-haiku@20241022:beta/x (eu) from eu-west: probe from eu-west failed 3 times in a row');
    expect(body.blocks[1].elements[0].text).toContain(`https://breakerbox.example/?incident=${incident.id}`);
  });

  it('sends a PagerDuty Events v2 trigger deduplicated by the incident', async () => {
    const [alert] = (await c.get('/api/alerts?state=firing')).alerts;
    expect(alert.group_key).toMatch(/^[0-9a-f]{16}$/);
    const body = r.pd.received[0]!.body;
    expect(body).toMatchObject({
      routing_key: 'R0UT1NGKEY-secret', event_action: 'trigger', dedup_key: alert.group_key,
      payload: { severity: 'warning', source: `anthropic/messages/${KP.model}`, group: 'probe_failing' },
    });
    expect(body.payload.summary).toContain('failed 3 times in a row');
  });

  it('posts Alertmanager v2 alerts with labels, annotations, startsAt, endsAt and generatorURL', async () => {
    if (am) {
      const listed = (await (await fetch(`${am.url}/api/v2/alerts`)).json()) as any[];
      expect(listed).toHaveLength(1);
      expect(listed[0].labels).toMatchObject({ alertname: 'breakerbox_probe_failing', model: KP.model, region: 'eu', location: 'eu-west', severity: 'warning' });
      expect(listed[0].annotations.summary).toContain('failed 3 times in a row');
      expect(listed[0].generatorURL).toMatch(/^https:\/\/breakerbox\.example\/alerts\?fingerprint=[0-9a-f]{16}$/);
    } else {
      expect(postableAlertProblems(r.amSchema.received[0]!.body)).toEqual([]);
    }
    expect((await deliveries('am'))[0]).toMatchObject({ status: 'ok' });
  });

  it('sends resolve notices: PagerDuty resolve with the same dedup_key, Slack RESOLVED, Alertmanager endsAt', async () => {
    const fingerprint = r.pd.received[0]!.body.dedup_key;
    await c.app.alerts.evaluate(at(7));
    await c.app.alerts.idle();
    expect(r.pd.received.at(-1)!.body).toEqual({ routing_key: 'R0UT1NGKEY-secret', event_action: 'resolve', dedup_key: fingerprint });
    expect(r.slack.received.at(-1)!.body.text).toMatch(/^\[RESOLVED\]/);
    if (am) {
      const active = (await (await fetch(`${am.url}/api/v2/alerts?active=true`)).json()) as any[];
      expect(active).toEqual([]);
    } else {
      const last = r.amSchema.received.at(-1)!.body[0];
      expect(Date.parse(last.endsAt)).toBe(at(7));
    }
    // The hanging notifier never delivered "firing", so it owes no resolve notice.
    expect((await deliveries('hang')).map((d: any) => d.event)).toEqual(['firing']);
  });

  it('never shows notifier secrets in the API', async () => {
    const res = await c.app.inject({ url: '/api/notifications', headers: { authorization: `Bearer ${c.token}` } });
    for (const secret of SECRETS) expect(res.body).not.toContain(secret);
    expect(res.json().notifiers.find((n: any) => n.name === 'slack').url).toBe(`${r.slack.url}/…`);
  });
});

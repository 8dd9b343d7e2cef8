/**
 * One incident, one page: seven openai models failing for one cause are one notification
 * (then an update when an eighth joins, then one resolve notice) at a local receiver, and a
 * real Alertmanager routing by the `incident` label sends one group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { startAlertmanager, type RealAlertmanager } from './alertmanager.ts';
import { receiver, type Receiver } from './receiver.ts';

const MODELS = ['gpt-4o@2024-08-06', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini:low', 'ft:gpt-4o-mini:acme:triage:9xYz', 'text/davinci:legacy'];
const KEYS: BreakerKey[] = MODELS.map((model) => ({ provider: 'openai', endpoint: 'chat', model }));
const LATE: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.5-preview@late' };
const CALM: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku@20241022' };

let c: TestCollector;
let hook: Receiver;
let base: number;
const at = (m: number) => base + m * MIN;
const hookBodies = () => hook.received.map((r) => r.body);

/** A key failing at the provider from `start` to `end` (minutes): breaker open, probes failing from both locations. */
function outage(key: BreakerKey, start: number, end: number): { clients: TelemetryEvent[]; probes: Map<string, TelemetryEvent[]> } {
  const clients: TelemetryEvent[] = [
    transition(key, at(0) - MIN, null, 'closed', 'created'),
    ...windows(key, at(0), at(start), { calls: 10 }),
    ...windows(key, at(start), at(end), { calls: 10, errors: { server: 6 } }),
    ...windows(key, at(end), at(60), { calls: 10 }),
    transition(key, at(start) + 30_000, 'closed', 'open'),
    transition(key, at(end), 'open', 'closed', 'probes_succeeded'),
  ];
  const byLocation = new Map<string, TelemetryEvent[]>();
  for (const location of ['eu-west', 'us-east']) {
    byLocation.set(location, [
      ...probes(key, location, at(0), at(start - 2), 'ok'),
      ...probes(key, location, at(start - 2), at(end), 'error', { error_class: 'server', status: 503 }),
      ...probes(key, location, at(end), at(60), 'ok'),
    ]);
  }
  return { clients, probes: byLocation };
}

beforeAll(async () => {
  hook = await receiver();
  c = await collector({
    config: {
      notifiers: [
        { name: 'hook', type: 'webhook', url: `${hook.url}/hook`, min_severity: 'info', retries: 0 },
      ],
    },
  });
  base = c.now - 60 * MIN;
  const events = new Map<string, TelemetryEvent[]>();
  const add = (instance: string, list: TelemetryEvent[]) => events.set(instance, [...(events.get(instance) ?? []), ...list]);
  for (const key of KEYS) {
    const o = outage(key, 20, 40);
    add('pod-1', o.clients);
    for (const [location, list] of o.probes) add(location, list);
  }
  const late = outage(LATE, 26, 40);
  add('pod-1', late.clients);
  for (const [location, list] of late.probes) add(location, list);
  add('pod-1', [transition(CALM, at(0) - MIN, null, 'closed', 'created'), ...windows(CALM, at(0), at(60), { calls: 10 })]);
  for (const location of ['eu-west', 'us-east']) add(location, probes(CALM, location, at(0), at(60), 'ok'));
  for (const [instance, list] of events) await c.send({ service: instance.includes('-') && instance !== 'pod-1' ? 'prober' : 'ticket-drafts', instance }, list);
});
afterAll(async () => {
  await c.close();
  await hook.close();
});

describe('incidents and grouped notifications', () => {
  it('lists one incident for seven models of one provider', async () => {
    const { incidents } = await c.get(`/api/incidents?from=${at(8)}&to=${at(23)}`);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ title: 'openai: 7 models, provider outage', verdict: 'provider_outage', cause: { kind: 'provider', name: 'openai' } });
    expect(incidents[0].keys.map((k: any) => k.key.model).sort()).toEqual([...MODELS].sort());
    expect(incidents[0].evidence[0]).toBe('7 keys of provider openai: provider_outage on 7');
  });

  it('pages once for the incident, not once per key', async () => {
    const result = await c.app.alerts.evaluate(at(23));
    await c.app.alerts.idle();
    // Per model: open_share, probe_failing from two locations, and clients_degraded — its for_s (60 s)
    // runs on the data, which shows the clients failing since minute 20.
    expect(result.firing).toBe(28);
    expect(hookBodies()).toHaveLength(1);
    const [page] = hookBodies();
    expect(page).toMatchObject({ event: 'firing', group: { title: 'openai: 7 models, provider outage' } });
    expect(page.group.alerts).toHaveLength(28);
    expect(page.group.incident.keys).toHaveLength(7);
    expect(page.link).toBe(`http://127.0.0.1:7070/?incident=${page.group.key}`);
    const { alerts } = await c.get('/api/alerts?state=firing');
    expect(new Set(alerts.map((a: any) => a.group_key))).toEqual(new Set([page.group.key]));
  });

  it('stays quiet while nothing changes, and sends one update when an eighth model joins', async () => {
    await c.app.alerts.evaluate(at(25));
    await c.app.alerts.idle();
    expect(hookBodies()).toHaveLength(1);
    await c.app.alerts.evaluate(at(29));
    await c.app.alerts.idle();
    expect(hookBodies()).toHaveLength(2);
    const update = hookBodies()[1];
    expect(update).toMatchObject({ event: 'update', group: { title: 'openai: 8 models, provider outage' } });
    expect(update.group.key).toBe(hookBodies()[0].group.key);
    // Per model: open_share, probe_failing from two locations and clients_degraded — the eighth's
    // too: its clients have failed since minute 26 on the data, past its for_s (60 s).
    expect(update.group.alerts).toHaveLength(32);
    expect(update.group.alerts.filter((a: any) => a.rule === 'clients_degraded')).toHaveLength(8);
  });

  it('sends one resolve notice when the incident is over', async () => {
    await c.app.alerts.evaluate(at(57));
    await c.app.alerts.idle();
    expect(hookBodies()).toHaveLength(3);
    expect(hookBodies()[2]).toMatchObject({ event: 'resolved' });
    expect(hookBodies()[2].group.alerts).toHaveLength(32);
    await c.app.alerts.evaluate(at(58));
    await c.app.alerts.idle();
    expect(hookBodies()).toHaveLength(3);
  });

});

describe('grouped by a real Alertmanager', () => {
  let d: TestCollector;
  let amHook: Receiver;
  let am: RealAlertmanager | null;

  beforeAll(async () => {
    amHook = await receiver();
    am = await startAlertmanager(
      `route:\n  receiver: hook\n  group_by: ['incident']\n  group_wait: 3s\n  group_interval: 1m\n  repeat_interval: 1h\n` +
        `receivers:\n  - name: hook\n    webhook_configs:\n      - url: ${amHook.url}/am\n        send_resolved: true\n`,
    );
    d = await collector({ config: { notifiers: am ? [{ name: 'am', type: 'alertmanager', url: am.url, min_severity: 'info', retries: 0 }] : [] } });
    const start = d.now - 10 * MIN;
    for (const key of KEYS) {
      await d.send({ service: 'ticket-drafts', instance: 'pod-1' }, [
        transition(key, start - MIN, null, 'closed', 'created'),
        ...windows(key, start, d.now, { calls: 10, errors: { server: 6 } }),
        transition(key, start + MIN, 'closed', 'open'),
      ]);
      for (const location of ['eu-west', 'us-east']) {
        await d.send({ service: 'prober', instance: location }, probes(key, location, start, d.now, 'error', { error_class: 'server', status: 503 }));
      }
    }
  });
  afterAll(async () => {
    await d.close();
    await amHook.close();
    await am?.close();
  });

  it('labels each alert with its incident, so a group_by route sends one notification for all of them', async () => {
    if (!am) return; // no prometheus-alertmanager installed: the payload shape is covered in notifiers.test.ts
    // Evaluated at the real time: Alertmanager holds a new group for group_wait (3 s) only for alerts that started recently.
    // clients_degraded too: the stored data shows its 10 minutes of failures (for_s on the data's timeline).
    expect((await d.app.alerts.evaluate(Date.now())).firing).toBe(28);
    await d.app.alerts.idle();
    const [first] = await amHook.waitFor(1);
    const { incidents } = await d.get('/api/incidents');
    expect(first!.body.groupLabels).toEqual({ incident: incidents[0].id });
    expect(first!.body.alerts).toHaveLength(28);
    expect(first!.body.commonAnnotations.incident).toBe('openai: 7 models, provider outage');
    expect(new Set(first!.body.alerts.map((a: any) => a.labels.model))).toEqual(new Set(MODELS));
  });
});

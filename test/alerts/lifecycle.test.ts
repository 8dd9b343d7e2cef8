import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { receiver, type Receiver } from './receiver.ts';

const K1: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };
const K2: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'ft:gpt-4o-mini:acme:triage:9xYz' };

let c: TestCollector;
let hook: Receiver;
let base: number;
const at = (m: number) => base + m * MIN;

/** Alerts of `key` from the API. */
async function alertsOf(key: BreakerKey, query = '') {
  const answer = await c.get(`/api/alerts${query}`);
  return answer.alerts.filter((a: any) => a.key?.model === key.model && a.rule === 'open_share');
}
const eventsOf = (key: BreakerKey) =>
  hook.received.filter((r) => r.body.alert.key?.model === key.model && r.body.alert.rule === 'open_share').map((r) => r.body.event);

beforeAll(async () => {
  hook = await receiver();
  c = await collector({
    config: {
      // The open_share lifecycle on its own: clients_degraded would lead these keys' pages (critical).
      alerts: { rules: { open_share: { for_s: 120 }, clients_degraded: { enabled: false } } },
      notifiers: [{ name: 'hook', type: 'webhook', url: `${hook.url}/hooks/secret-token-123?sig=abc`, min_severity: 'info', repeat_interval_s: 600, retries: 0 }],
    },
  });
  base = c.now - 60 * MIN;
  for (const key of [K1, K2]) {
    const events: TelemetryEvent[] = [
      transition(key, base - MIN, null, 'closed', 'created'),
      ...windows(key, base, c.now, { calls: 10, errors: { server: 1 }, retries: 8 }),
      transition(key, at(20), 'closed', 'open'),
      transition(key, at(24), 'open', 'closed', 'probes_succeeded'),
    ];
    // Two services: each key is its own self-inflicted incident, so each alert notifies on its own.
    await c.send({ service: key === K1 ? 'ticket-drafts' : 'search', instance: 'pod-1' }, events);
    await c.send({ service: 'prober', instance: 'eu' }, probes(key, 'eu-west', base, c.now, 'ok'));
    await c.send({ service: 'prober', instance: 'us' }, probes(key, 'us-east', base, c.now, 'ok'));
  }
});
afterAll(async () => {
  await c.close();
  await hook.close();
});

describe('alert lifecycle (open share: fire at 10%, resolve below 5%, for 2 min)', () => {
  let silenceId: string;

  it('starts pending when the condition first holds and notifies nobody yet', async () => {
    const silence = await c.app.inject({
      method: 'POST', url: '/api/silences', headers: { authorization: `Bearer ${c.token}` },
      payload: { matchers: [{ name: 'model', value: 'ft:gpt-4o-.*', regex: true }, { name: 'rule', value: 'open_share' }], ends_at: Date.now() + 3_600_000, comment: 'known incident' },
    });
    expect(silence.statusCode).toBe(201);
    silenceId = silence.json().silence.id;

    await c.app.alerts.evaluate(at(25));
    await c.app.alerts.idle();
    const [a] = await alertsOf(K1);
    expect(a).toMatchObject({ state: 'pending', started_at: at(25), fired_at: null, severity: 'warning', key: K1 });
    expect(a.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(hook.received).toHaveLength(0);
  });

  it('fires once its for duration has passed, with the verdict and hint in the summary, and notifies', async () => {
    await c.app.alerts.evaluate(at(27));
    await c.app.alerts.idle();
    const [a] = await alertsOf(K1, '?state=firing');
    expect(a).toMatchObject({ state: 'firing', started_at: at(25), fired_at: at(27), verdict: 'self_inflicted', hint: 'retry_storm', value: 0.2667 });
    expect(a.summary).toBe('open 27% of the last 15 min (closed on all 1) — probes fine from 2 locations: likely self-inflicted (retry_storm)');
    expect(eventsOf(K1)).toEqual(['firing']);
    const body = hook.received[0]!.body;
    expect(body.alert).toMatchObject({ fingerprint: a.fingerprint, rule: 'open_share', key: K1, state: 'firing' });
  });

  it('shows a silenced alert as silenced and sends it nowhere', async () => {
    const [a] = await alertsOf(K2);
    expect(a).toMatchObject({ state: 'firing', silenced: true, silenced_by: [silenceId] });
    expect(eventsOf(K2)).toEqual([]);
  });

  it('repeats a firing alert after the repeat interval, not before', async () => {
    await c.app.alerts.evaluate(at(35));
    await c.app.alerts.idle();
    expect(eventsOf(K1)).toEqual(['firing']);
    await c.app.alerts.evaluate(at(37));
    await c.app.alerts.idle();
    expect(eventsOf(K1)).toEqual(['firing', 'repeat']);
  });

  it('holds a firing alert between the resolve and fire thresholds (hysteresis)', async () => {
    await c.app.alerts.evaluate(at(38));
    await c.app.alerts.idle();
    const [a] = await alertsOf(K1);
    expect(a).toMatchObject({ state: 'firing', value: 0.0667 });
  });

  it('notifies an alert whose silence was expired', async () => {
    const del = await c.app.inject({ method: 'DELETE', url: `/api/silences/${silenceId}`, headers: { authorization: `Bearer ${c.token}` } });
    expect(del.statusCode).toBe(200);
    expect(del.json().silence.state).toBe('expired');
    await c.app.alerts.evaluate(at(38.2));
    await c.app.alerts.idle();
    expect(eventsOf(K2)).toEqual(['firing']);
  });

  it('resolves below the resolve threshold and notifies the resolution', async () => {
    await c.app.alerts.evaluate(at(39));
    await c.app.alerts.idle();
    const [a] = await alertsOf(K1, '?state=resolved');
    expect(a).toMatchObject({ state: 'resolved', fired_at: at(27), resolved_at: at(39) });
    expect(eventsOf(K1)).toEqual(['firing', 'repeat', 'resolved']);
    expect(await alertsOf(K1, '?state=firing')).toEqual([]);
  });

  it('drops a pending alert whose condition clears before its for duration', async () => {
    // One minute after the open on the data (the open's own minute is not credited): pending, with 2 min to go.
    await c.app.alerts.evaluate(at(22));
    expect((await alertsOf(K1, '?state=pending')).length).toBe(1);
    await c.app.alerts.evaluate(at(50));
    expect(await alertsOf(K1, '?state=pending')).toEqual([]);
  });

  it('records deliveries without the secret parts of the notifier URL', async () => {
    const res = await c.app.inject({ url: '/api/notifications', headers: { authorization: `Bearer ${c.token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('secret-token-123');
    expect(res.body).not.toContain('sig=abc');
    const answer = res.json();
    expect(answer.notifiers).toEqual([{ name: 'hook', type: 'webhook', url: `${hook.url}/…`, min_severity: 'info', queued: 0, in_flight: 0 }]);
    expect(answer.deliveries.map((d: any) => d.event).sort()).toEqual(['firing', 'firing', 'repeat', 'resolved', 'resolved']);
    expect(answer.deliveries.every((d: any) => d.status === 'ok' && d.attempts === 1)).toBe(true);
  });

  it('refuses a silence without matchers, and silences from a read-only token', async () => {
    const bad = await c.app.inject({
      method: 'POST', url: '/api/silences', headers: { authorization: `Bearer ${c.token}` },
      payload: { matchers: [], ends_at: Date.now() + 60_000, comment: 'x' },
    });
    expect(bad.statusCode).toBe(400);
    const reader = (await c.app.storage.tokens.create('reader', ['read'])).secret;
    const denied = await c.app.inject({
      method: 'POST', url: '/api/silences', headers: { authorization: `Bearer ${reader}` },
      payload: { matchers: [{ name: 'rule', value: 'flapping' }], ends_at: Date.now() + 60_000, comment: 'x' },
    });
    expect(denied.statusCode).toBe(403);
  });
});

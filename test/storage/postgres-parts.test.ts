import { minuteOf } from '@breakerbox/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import type { StoredAlert } from '../../server/storage/parts/alerts.ts';
import { createPostgresStorage, type PostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { KEY, batch, windowEvent } from '../server/helpers.ts';
import { RETENTION, postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';

const available = postgresAvailable();
let cluster: PostgresCluster;
let counter = 0;
const opened: PostgresStorage[] = [];

beforeAll(async () => {
  if (available) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await cluster?.stop();
});

const clock = manualClock(Date.now());
async function collectors(n: number): Promise<PostgresStorage[]> {
  const url = await cluster.createDatabase(`parts_${++counter}`);
  const out: PostgresStorage[] = [];
  for (let i = 0; i < n; i++) out.push(await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION }));
  opened.push(...out);
  return out;
}

const T = 1_764_000_000_000;
type NewAlert = Extract<Parameters<PostgresStorage['alerts']['apply']>[0][number], { op: 'insert' }>['alert'];
const alert = (over: Partial<NewAlert> = {}): NewAlert => ({
  fingerprint: 'flapping:k1', rule: 'flapping', keyId: null, location: null, operation: null, state: 'pending', severity: 'warning',
  summary: 'flapping', value: 12, verdict: null, hint: null, started_at: T, fired_at: null, resolved_at: null, updated_at: T, ...over,
} as NewAlert);

describe.skipIf(!available)('PostgreSQL engine: alerts, silences, notifications', () => {
  it('applies an evaluation all or none and lists alerts as the API asks', async () => {
    const [pg] = await collectors(1);
    await pg!.telemetry.insertBatch(batch([windowEvent()]), T);
    const keyId = (await pg!.telemetry.findKeyId(KEY))!;
    const [a, b] = await pg!.alerts.apply([
      { op: 'insert', alert: alert({ keyId }) },
      { op: 'insert', alert: alert({ fingerprint: 'open_share:k1', rule: 'open_share', started_at: T + 1 }) },
    ]);
    await pg!.alerts.apply([
      { op: 'update', id: a!, fields: { state: 'firing', severity: 'critical', summary: 'flapping hard', value: 30, verdict: 'provider_outage', hint: null, fired_at: T + 5, resolved_at: null, updated_at: T + 5 } },
      { op: 'group', id: a!, groupKey: 'incident-1' },
      { op: 'remove', id: b! },
    ]);
    const unresolved = await pg!.alerts.unresolved();
    expect([...unresolved.keys()]).toEqual(['flapping:k1']);
    const firing = unresolved.get('flapping:k1') as StoredAlert;
    expect(firing).toMatchObject({ id: a, keyId, key: KEY, state: 'firing', severity: 'critical', verdict: 'provider_outage', fired_at: T + 5, group_key: 'incident-1' });
    // A second unresolved alert of one fingerprint is refused, and nothing of that evaluation stays.
    await expect(pg!.alerts.apply([
      { op: 'insert', alert: alert({ fingerprint: 'probe_failing:x', rule: 'probe_failing' }) },
      { op: 'insert', alert: alert() },
    ])).rejects.toThrow();
    expect((await pg!.alerts.unresolved()).size).toBe(1);
    expect(await pg!.alerts.countsByState()).toEqual([{ state: 'firing', severity: 'critical', n: 1 }]);
    await pg!.alerts.apply([{ op: 'update', id: a!, fields: { ...firing, state: 'resolved', resolved_at: T + 60, updated_at: T + 60 } }]);
    expect((await pg!.alerts.list({ since: T + 61, limit: 10 })).map((x) => x.id)).toEqual([]);
    expect((await pg!.alerts.list({ since: T, limit: 10 })).map((x) => x.id)).toEqual([a]);
    expect((await pg!.alerts.list({ state: 'resolved', since: T, limit: 10, fingerprint: 'flapping:k1' })).map((x) => x.state)).toEqual(['resolved']);
    expect((await pg!.alerts.toNotify(T + 30)).map((x) => x.id)).toEqual([a]);
    expect(await pg!.alerts.toNotify(T + 61)).toEqual([]);
  });

  it('keeps what was paged where the next leader reads it, so a takeover does not page again', async () => {
    const [leader, next] = await collectors(2);
    expect(await next!.notifications.groupState('incident-1', 'pagerduty')).toBeUndefined();
    await leader!.notifications.recordGroup('incident-1', 'pagerduty', 'firing', true, T, 'digest-1');
    await leader!.notifications.recordGroup('incident-1', 'pagerduty', 'repeat', false, T + 10, 'digest-2');
    expect(await next!.notifications.groupState('incident-1', 'pagerduty')).toEqual({
      last_event: 'firing', last_sent_at: T, last_attempt_at: T + 10, last_status: 'failed', digest: 'digest-1',
    });
    await leader!.notifications.recordAlert(7, 'alertmanager', 'firing', true, T);
    expect(await next!.notifications.alertState(7, 'alertmanager')).toEqual({ last_event: 'firing', last_sent_at: T, last_attempt_at: T, last_status: 'ok' });
    const id = await leader!.notifications.startDelivery({ notifier: 'pagerduty', type: 'pagerduty', alert_id: 7, fingerprint: 'flapping:k1', rule: 'flapping', group_key: 'incident-1', event: 'firing', created_at: T });
    const other = await leader!.notifications.startDelivery({ notifier: 'hook', type: 'webhook', alert_id: 8, fingerprint: 'x', rule: 'flapping', group_key: null, event: 'firing', created_at: T });
    await leader!.notifications.finishDelivery(id, { status: 'ok', attempts: 1, http_status: 202, error: null, finished_at: T + 1 });
    await next!.notifications.failAbandoned(T + 2);
    const list = await next!.notifications.deliveries({ limit: 10 });
    expect(list.map((d) => [d.id, d.status, d.error])).toEqual([[other, 'failed', 'abandoned: the collector stopped'], [id, 'ok', null]]);
    expect((await next!.notifications.deliveries({ limit: 10, fingerprint: 'incident-1' })).map((d) => d.id)).toEqual([id]);
    expect((await next!.notifications.deliveries({ limit: 10, notifier: 'hook', status: 'failed' })).map((d) => d.id)).toEqual([other]);
  });

  it('stores silences, lists the active ones and expires one early', async () => {
    const [pg] = await collectors(1);
    const s = { id: 's1', matchers: [{ name: 'rule' as const, value: 'flapping', regex: false }], starts_at: T, ends_at: T + 1000, comment: 'deploy', created_by: 'ops', created_at: T };
    await pg!.silences.insert(s);
    expect(await pg!.silences.get('s1')).toEqual(s);
    expect((await pg!.silences.active(T + 10)).map((x) => x.id)).toEqual(['s1']);
    expect(await pg!.silences.active(T + 1000)).toEqual([]);
    expect(await pg!.silences.expire('s1', T + 10)).toEqual({ ...s, ends_at: T + 10 });
    expect(await pg!.silences.expire('s1', T + 20)).toEqual({ ...s, ends_at: T + 10 });
    expect(await pg!.silences.expire('nope', T)).toBeNull();
    expect((await pg!.silences.listEndingAfter(T)).map((x) => x.id)).toEqual(['s1']);
  });
});

describe.skipIf(!available)('PostgreSQL engine: raw event reads', () => {
  it('answers transitions, opens, config, fallbacks and probes from what was ingested', async () => {
    const [pg] = await collectors(1);
    const t = minuteOf(Date.now() - 600_000);
    const pod = (instance: string) => ({ service: 'drafts', instance });
    await pg!.telemetry.insertBatch(batch([
      { type: 'transition', ts: t, key: KEY, from: null, to: 'closed', reason: 'created' },
      { type: 'transition', ts: t + 1000, key: KEY, from: 'closed', to: 'open', reason: 'error_rate' },
      { type: 'config', ts: t, key: KEY, settings: { latency_ceiling_ms: 8000 }, fallbacks: [{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }], warnings: ['same region'] },
      { type: 'probe', ts: t + 2000, key: KEY, location: 'eu-west', outcome: 'error', error_class: 'timeout', latency_ms: { total: 9000 } },
      { type: 'probe', ts: t + 3000, key: KEY, location: 'eu-west', outcome: 'ok', latency_ms: { total: 300 }, cold: true },
      windowEvent({ start: t, end: t + 10_000 }),
    ], pod('pod-1')), T);
    await pg!.telemetry.insertBatch(batch([{ type: 'transition', ts: t + 500, key: KEY, from: 'closed', to: 'forced_open', reason: 'manual' }], pod('pod-2')), T);
    const keyId = (await pg!.telemetry.findKeyId(KEY))!;
    const sources = new Map([...(await pg!.telemetry.sources()).values()].map((s) => [s.instance, s.id]));
    const before = await pg!.events.stateBefore(t + 2000);
    expect(before.sort((a, b) => a.sourceId - b.sourceId)).toEqual([
      { keyId, sourceId: sources.get('pod-1'), ts: t + 1000, toState: 'open' },
      { keyId, sourceId: sources.get('pod-2'), ts: t + 500, toState: 'forced_open' },
    ]);
    expect((await pg!.events.transitionsIn(t, t + 1000, keyId)).map((r) => r.ts)).toEqual([t, t + 500]);
    expect(await pg!.events.lastReportMinute(keyId, sources.get('pod-1')!, t + 60_000)).toBe(t);
    expect(await pg!.events.lastReportMinute(keyId, sources.get('pod-1')!, t)).toBeNull();
    expect((await pg!.events.keyTransitions(keyId, t, t + 5000, 2)).map((r) => [r.instance, r.from, r.to])).toEqual([['pod-1', 'closed', 'open'], ['pod-2', 'closed', 'forced_open']]);
    const opens = (await pg!.events.opensPerInstance(t, t + 5000)).sort((a, b) => (a.instance < b.instance ? -1 : 1));
    expect(opens).toEqual([{ keyId, key: KEY, instance: 'pod-1', opens: 1 }, { keyId, key: KEY, instance: 'pod-2', opens: 1 }]);
    expect(await pg!.events.latestConfig(keyId)).toEqual({
      ts: t, service: 'drafts', instance: 'pod-1', settings: { latency_ceiling_ms: 8000 },
      fallbacks: [{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }], warnings: ['same region'],
    });
    expect(await pg!.events.hasFallbacks()).toEqual(new Map([[keyId, true]]));
    const probes = await pg!.events.probeEvents(t, t + 60_000);
    expect(probes.map((p) => [p.ts, p.outcome, p.cold])).toEqual([[t + 3000, 'ok', true], [t + 2000, 'error', false]]);
    expect(await pg!.events.lastWarmProbe(keyId, 'eu-west', t + 5000)).toEqual({ key: KEY, outcome: 'error', errorClass: 'timeout', status: null });
    expect(await pg!.events.warmOutcomes(keyId, 'eu-west', t, t + 60_000, t + 5000)).toEqual(['error']);
    expect(await pg!.events.probeFailureClasses(t, t + 60_000)).toEqual(new Map([['eu-west', { failed: 1, network: 1 }]]));
  });
});

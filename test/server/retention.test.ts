import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPruner } from '../../server/storage/sqlite/retention.ts';
import { batch, makeApp, oneOfEach, rowCounts } from './helpers.ts';
import { sqlOf } from '../support/sql.ts';

const DAY = 86_400_000;
let t: Awaited<ReturnType<typeof makeApp>>;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

describe('retention', () => {
  it('prunes raw events past their retention in small steps and keeps rollups longer', async () => {
    for (let i = 0; i < 5; i++) {
      await t.app.inject({
        method: 'POST', url: '/v1/telemetry',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
        payload: JSON.stringify(batch(oneOfEach())),
      });
    }
    const pruner = createPruner(sqlOf(t.app), { rawDays: 7, rollupDays: 90, batchIdHours: 48, alertHistoryDays: 30, silenceDays: 7 }, { stepRows: 2 });
    expect((await pruner.prune(Date.now())).deleted.window_events).toBe(0);

    const { deleted } = await pruner.prune(Date.now() + 8 * DAY);
    expect(deleted).toMatchObject({ window_events: 5, transition_events: 5, task_events: 5, config_events: 5, probe_events: 5, key_minutes: 0, batches: 5 });
    const kept = rowCounts(t.app);
    expect(kept).toMatchObject({ window_events: 0, probe_events: 0 });
    // The events span one or two minutes depending on when the test runs.
    for (const table of ['key_minutes', 'probe_minutes', 'task_minutes']) expect(kept[table]).toBeGreaterThan(0);

    await pruner.prune(Date.now() + 91 * DAY);
    expect(rowCounts(t.app)).toMatchObject({ key_minutes: 0, probe_minutes: 0, task_minutes: 0 });
  });
});

describe('the one pruner', () => {
  it('expires alerts, their notification state, silences, deliveries and sessions with the telemetry, in one pass', async () => {
    const { storage } = t.app;
    const now = Date.now();
    const old = now - 31 * DAY;
    const { token } = await storage.tokens.create('dashboard', ['read']);
    expect(await storage.sessions.create({ idHash: 'gone', tokenId: token.id, createdAt: now - 2000, expiresAt: now - 1000 })).toBe(true);
    expect(await storage.sessions.create({ idHash: 'live', tokenId: token.id, createdAt: now, expiresAt: now + 3_600_000 })).toBe(true);
    const resolved = { rule: 'open_share' as const, keyId: null, location: null, operation: 'draft', severity: 'warning' as const, summary: 's', value: 1, verdict: null, hint: null };
    const [oldId, newId] = await storage.alerts.apply([
      { op: 'insert', alert: { ...resolved, fingerprint: 'aaaaaaaaaaaaaaaa', state: 'resolved', started_at: old, fired_at: old, resolved_at: old, updated_at: old } },
      { op: 'insert', alert: { ...resolved, fingerprint: 'bbbbbbbbbbbbbbbb', state: 'resolved', started_at: now, fired_at: now, resolved_at: now, updated_at: now } },
    ]);
    await storage.notifications.recordAlert(oldId!, 'am', 'resolved', true, old);
    await storage.notifications.recordAlert(newId!, 'am', 'resolved', true, now);
    await storage.notifications.recordGroup('aaaaaaaaaaaaaaaa', 'hook', 'resolved', true, old, 'd');
    const delivery = { notifier: 'hook', type: 'webhook', alert_id: oldId!, fingerprint: 'aaaaaaaaaaaaaaaa', rule: 'open_share', group_key: null, event: 'resolved' as const };
    await storage.notifications.startDelivery({ ...delivery, created_at: old });
    await storage.notifications.startDelivery({ ...delivery, created_at: now });
    const matchers = [{ name: 'rule' as const, value: 'open_share', regex: false }];
    await storage.silences.insert({ id: 'ended', matchers, starts_at: old, ends_at: old + 1000, comment: 'c', created_by: 'me', created_at: old });
    await storage.silences.insert({ id: 'active', matchers, starts_at: now, ends_at: now + 3_600_000, comment: 'c', created_by: 'me', created_at: now });

    const { deleted } = await storage.retention.prune(now);
    expect(deleted).toMatchObject({ alerts: 1, alert_notifications: 1, incident_notifications: 1, notification_deliveries: 1, silences: 1, sessions: 1 });
    expect([...(await storage.alerts.list({ since: 0, limit: 10, state: 'resolved' }))].map((a) => a.fingerprint)).toEqual(['bbbbbbbbbbbbbbbb']);
    expect(await storage.notifications.alertState(newId!, 'am')).toMatchObject({ last_event: 'resolved' });
    expect(await storage.notifications.groupState('aaaaaaaaaaaaaaaa', 'hook')).toBeUndefined();
    expect((await storage.notifications.deliveries({ limit: 10 })).map((d) => d.created_at)).toEqual([now]);
    expect((await storage.silences.listEndingAfter(0)).map((s) => s.id)).toEqual(['active']);
    expect(await storage.sessions.lookup('live', now)).toMatchObject({ name: 'dashboard' });
    expect(await storage.sessions.lookup('gone', now - 1500)).toBeNull();
  });
});

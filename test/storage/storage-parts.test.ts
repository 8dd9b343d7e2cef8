/**
 * The storage parts through the interface only, on both engines: each test runs against the
 * embedded SQLite engine and the PostgreSQL one. "Two collectors" are two storages on one
 * PostgreSQL database; on SQLite (single-collector) both are the same storage.
 */
import { fleetKeyTag, minuteOf } from '@breakerbox/protocol';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import type { StoredAlert } from '../../server/storage/parts/alerts.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import type { Storage } from '../../server/storage/storage.ts';
import { KEY, batch, tempDir, windowEvent } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();

const clock = manualClock(Date.now());
const ENGINES = [
  {
    name: 'sqlite',
    async collectors(n: number): Promise<Storage[]> {
      const tmp = tempDir();
      postgres.defer(tmp.cleanup);
      const s = createSqliteStorage({ path: join(tmp.dir, 'bbx.db'), clock, retention: RETENTION, retryAfterS: 1 });
      postgres.defer(() => s.close());
      return Array.from({ length: n }, () => s);
    },
  },
  ...(postgres.available ? [{
    name: 'postgres',
    async collectors(n: number): Promise<Storage[]> {
      const url = await postgres.database('parts');
      const out: Storage[] = [];
      for (let i = 0; i < n; i++) {
        const s = await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION });
        postgres.defer(() => s.close());
        out.push(s);
      }
      return out;
    },
  }] : []),
];

const T = 1_764_000_000_000;
type NewAlert = Extract<Parameters<Storage['alerts']['apply']>[0][number], { op: 'insert' }>['alert'];
const alert = (over: Partial<NewAlert> = {}): NewAlert => ({
  fingerprint: 'flapping:k1', rule: 'flapping', keyId: null, location: null, operation: null, state: 'pending', severity: 'warning',
  summary: 'flapping', value: 12, verdict: null, hint: null, started_at: T, fired_at: null, resolved_at: null, updated_at: T, ...over,
} as NewAlert);

describe.each(ENGINES)('$name engine', ({ collectors }) => {
  describe('alerts, silences, notifications', () => {
    it('applies an evaluation all or none and lists alerts as the API asks', async () => {
      const [s] = await collectors(1);
      await s!.telemetry.insertBatch(batch([windowEvent()]), T);
      const keyId = (await s!.telemetry.findKeyId(KEY))!;
      const [a, b] = await s!.alerts.apply([
        { op: 'insert', alert: alert({ keyId }) },
        { op: 'insert', alert: alert({ fingerprint: 'open_share:k1', rule: 'open_share', started_at: T + 1 }) },
      ]);
      await s!.alerts.apply([
        { op: 'update', id: a!, fields: { state: 'firing', severity: 'critical', summary: 'flapping hard', value: 30, verdict: 'provider_outage', hint: null, fired_at: T + 5, resolved_at: null, updated_at: T + 5 } },
        { op: 'group', id: a!, groupKey: 'incident-1' },
        { op: 'remove', id: b! },
      ]);
      const unresolved = await s!.alerts.unresolved();
      expect([...unresolved.keys()]).toEqual(['flapping:k1']);
      const firing = unresolved.get('flapping:k1') as StoredAlert;
      expect(firing).toMatchObject({ id: a, keyId, key: KEY, state: 'firing', severity: 'critical', verdict: 'provider_outage', fired_at: T + 5, group_key: 'incident-1' });
      // A second unresolved alert of one fingerprint is refused, and nothing of that evaluation stays.
      await expect(s!.alerts.apply([
        { op: 'insert', alert: alert({ fingerprint: 'probe_failing:x', rule: 'probe_failing' }) },
        { op: 'insert', alert: alert() },
      ])).rejects.toThrow();
      expect((await s!.alerts.unresolved()).size).toBe(1);
      expect(await s!.alerts.countsByState()).toEqual([{ state: 'firing', severity: 'critical', n: 1 }]);
      await s!.alerts.apply([{ op: 'update', id: a!, fields: { ...firing, state: 'resolved', resolved_at: T + 60, updated_at: T + 60 } }]);
      expect((await s!.alerts.list({ since: T + 61, limit: 10 })).map((x) => x.id)).toEqual([]);
      expect((await s!.alerts.list({ since: T, limit: 10 })).map((x) => x.id)).toEqual([a]);
      expect((await s!.alerts.list({ state: 'resolved', since: T, limit: 10, fingerprint: 'flapping:k1' })).map((x) => x.state)).toEqual(['resolved']);
      expect((await s!.alerts.toNotify(T + 30)).map((x) => x.id)).toEqual([a]);
      expect(await s!.alerts.toNotify(T + 61)).toEqual([]);
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
      const [s] = await collectors(1);
      const silence = { id: 's1', matchers: [{ name: 'rule' as const, value: 'flapping', regex: false }], starts_at: T, ends_at: T + 1000, comment: 'deploy', created_by: 'ops', created_at: T };
      await s!.silences.insert(silence);
      expect(await s!.silences.get('s1')).toEqual(silence);
      expect((await s!.silences.active(T + 10)).map((x) => x.id)).toEqual(['s1']);
      expect(await s!.silences.active(T + 1000)).toEqual([]);
      expect(await s!.silences.expire('s1', T + 10)).toEqual({ ...silence, ends_at: T + 10 });
      expect(await s!.silences.expire('s1', T + 20)).toEqual({ ...silence, ends_at: T + 10 });
      expect(await s!.silences.expire('nope', T)).toBeNull();
      expect((await s!.silences.listEndingAfter(T)).map((x) => x.id)).toEqual(['s1']);
    });
  });

  describe('raw event reads', () => {
    it('answers transitions, opens, config, fallbacks and probes from what was ingested', async () => {
      const [s] = await collectors(1);
      const t = minuteOf(Date.now() - 600_000);
      const pod = (instance: string) => ({ service: 'drafts', instance });
      await s!.telemetry.insertBatch(batch([
        { type: 'transition', ts: t, key: KEY, from: null, to: 'closed', reason: 'created' },
        { type: 'transition', ts: t + 1000, key: KEY, from: 'closed', to: 'open', reason: 'error_rate' },
        { type: 'config', ts: t, key: KEY, settings: { latency_ceiling_ms: 8000 }, fallbacks: [{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }], warnings: ['same region'] },
        { type: 'probe', ts: t + 2000, key: KEY, location: 'eu-west', outcome: 'error', error_class: 'timeout', latency_ms: { total: 9000 } },
        { type: 'probe', ts: t + 3000, key: KEY, location: 'eu-west', outcome: 'ok', latency_ms: { total: 300 }, cold: true },
        windowEvent({ start: t, end: t + 10_000 }),
      ], pod('pod-1')), T);
      await s!.telemetry.insertBatch(batch([{ type: 'transition', ts: t + 500, key: KEY, from: 'closed', to: 'forced_open', reason: 'manual' }], pod('pod-2')), T);
      const keyId = (await s!.telemetry.findKeyId(KEY))!;
      const sources = new Map([...(await s!.telemetry.sources()).values()].map((x) => [x.instance, x.id]));
      const before = await s!.events.stateBefore(t + 2000);
      expect(before.sort((a, b) => a.sourceId - b.sourceId)).toEqual([
        { keyId, sourceId: sources.get('pod-1'), ts: t + 1000, toState: 'open' },
        { keyId, sourceId: sources.get('pod-2'), ts: t + 500, toState: 'forced_open' },
      ]);
      expect((await s!.events.transitionsIn(t, t + 1000, keyId)).map((r) => r.ts)).toEqual([t, t + 500]);
      expect(await s!.events.lastReportMinute(keyId, sources.get('pod-1')!, t + 60_000)).toBe(t);
      expect(await s!.events.lastReportMinute(keyId, sources.get('pod-1')!, t)).toBeNull();
      expect((await s!.events.keyTransitions(keyId, t, t + 5000, 2)).map((r) => [r.instance, r.from, r.to])).toEqual([['pod-1', 'closed', 'open'], ['pod-2', 'closed', 'forced_open']]);
      const opens = (await s!.events.opensPerInstance(t, t + 5000)).sort((a, b) => (a.instance < b.instance ? -1 : 1));
      // Flaps only: pod-1's closed -> open counts; pod-2's manual closed -> forced_open is no flap.
      expect(opens).toEqual([{ keyId, key: KEY, instance: 'pod-1', opens: 1 }]);
      expect(await s!.events.latestConfig(keyId)).toEqual({
        ts: t, service: 'drafts', instance: 'pod-1', settings: { latency_ceiling_ms: 8000 },
        fallbacks: [{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }], warnings: ['same region'],
      });
      expect(await s!.events.hasFallbacks()).toEqual(new Map([[keyId, true]]));
      const probes = await s!.events.probeEvents(t, t + 60_000);
      expect(probes.map((p) => [p.ts, p.outcome, p.cold])).toEqual([[t + 3000, 'ok', true], [t + 2000, 'error', false]]);
      expect(await s!.events.lastWarmProbe(keyId, 'eu-west', t + 5000)).toEqual({ key: KEY, outcome: 'error', errorClass: 'timeout', status: null });
      expect(await s!.events.warmOutcomes(keyId, 'eu-west', t, t + 60_000, t + 5000)).toEqual(['error']);
      expect(await s!.events.probeFailureClasses(t, t + 60_000)).toEqual(new Map([['eu-west', { failed: 1, network: 1 }]]));
    });
  });

  it('prunes what the policy says has expired, and keeps the rest', async () => {
    const [s] = await collectors(1);
    const now = Date.now();
    const old = now - 10 * 86_400_000;
    await s!.telemetry.insertBatch(batch([windowEvent({ start: old, end: old + 10_000 }), windowEvent({ start: now - 20_000, end: now - 10_000 })]), old);
    await s!.telemetry.insertBatch(batch([windowEvent({ start: now - 20_000, end: now - 10_000 })]), now);
    await s!.sessions.create({ idHash: 'gone', tokenId: (await s!.tokens.create('r', ['read'])).token.id, createdAt: old, expiresAt: old + 1000 });
    const { deleted } = await s!.retention.prune(now);
    expect(deleted).toMatchObject({ window_events: 1, batches: 1, sessions: 1, key_minutes: 0 });
    expect(Object.keys(deleted).length).toBeGreaterThan(15);
    expect((await s!.retention.prune(now)).deleted.window_events).toBe(0);
  });

  it('prunes drill runs and fleet decisions that ended past the rollup retention and a judged run\'s batches with the raw events; never a running drill, an unjudged run\'s batches or a decision in force', async () => {
    const [s] = await collectors(1);
    const now = Date.now();
    const DAY = 86_400_000;
    const long = now - 100 * DAY; // past the rollups' 90 days
    const run = (id: string, issuedAt: number, endsAt: number) => s!.drills.insertRun({
      id, service: 'drafts', kinds: ['rate_limit'], keys: null, stepMs: endsAt - issuedAt, issuedAt, endsAt,
      stoppedAt: null, stoppedBy: null, createdBy: 'oncall', updatedAt: issuedAt, report: null, judgedAt: null,
    });
    const drillBatch = (drillId: string, receivedAt: number) => s!.drills.insertBatch(drillId, `b-${drillId}`, { service: 'drafts', instance: 'pod-1', receivedAt, events: [] });
    await run('old-judged', long - 3_600_000, long);
    await s!.drills.saveReport('old-judged', { ok: true }, long + 60_000);
    await drillBatch('old-judged', long - 60_000);
    await run('recent-judged', now - 10 * DAY - 3_600_000, now - 10 * DAY);
    await s!.drills.saveReport('recent-judged', { ok: true }, now - 10 * DAY + 60_000);
    await drillBatch('recent-judged', now - 10 * DAY - 60_000);
    // Started before every cutoff and still running: neither it nor its telemetry may go.
    await run('running', long, now + 3_600_000);
    await drillBatch('running', now - 10 * DAY);
    // Ended past the raw retention and not judged yet: its report still needs its batches.
    await run('unjudged', now - 8 * DAY - 3_600_000, now - 8 * DAY);
    await drillBatch('unjudged', now - 8 * DAY - 60_000);

    const decision = (id: string, issuedAt: number, expiresAt: number, endedAt: number | null) => s!.fleet.insert({
      id, kind: 'drain', key: KEY, keyTag: fleetKeyTag(KEY), origin: 'operator', reason: 'INC-1', createdBy: 'oncall', locations: [],
      issuedAt, updatedAt: endedAt ?? issuedAt, expiresAt, endedAt, endedBy: endedAt === null ? null : 'oncall', keyId: null,
    });
    await decision('ended-long-ago', long - DAY, long + DAY, long); // its expiry was later; it ended long ago
    await decision('expired-long-ago', long - DAY, long, null);
    await decision('in-force', long, now + 3_600_000, null); // e.g. a verdict outage renewed ever since
    await decision('ended-recently', now - 2 * DAY, now + DAY, now - DAY);

    const { deleted } = await s!.retention.prune(now);
    expect(deleted).toMatchObject({ drill_runs: 1, drill_batches: 2, fleet_decisions: 2 });
    expect((await s!.drills.listRuns('drafts', 10)).map((r) => r.id).sort()).toEqual(['recent-judged', 'running', 'unjudged']);
    for (const [id, left] of [['old-judged', 0], ['recent-judged', 0], ['running', 1], ['unjudged', 1]] as const) expect((await s!.drills.batches(id)).length, id).toBe(left);
    expect((await s!.fleet.forKey(fleetKeyTag(KEY), 0, 10)).map((d) => d.id).sort()).toEqual(['ended-recently', 'in-force']);
    expect((await s!.fleet.running(now, ['drain'])).map((d) => d.id)).toEqual(['in-force']);
  });
  describe('tokens and sessions', () => {
    it('creates, verifies, lists and revokes tokens, shared by every collector', async () => {
      const [a, b] = await collectors(2);
      const { secret, token } = await a!.tokens.create('ingest-1', ['ingest']);
      expect(token).toMatchObject({ name: 'ingest-1', rights: ['ingest'], revokedAt: null });
      const principal = await b!.tokens.verify(secret);
      expect(principal?.name).toBe('ingest-1');
      expect([...principal!.rights]).toEqual(['ingest']);
      expect(await b!.tokens.verify(`${secret}x`)).toBeNull();
      await a!.tokens.ensure('admin', 'bbx_admin_secret', ['admin']);
      await b!.tokens.ensure('admin', 'bbx_admin_secret', ['admin']);
      expect((await a!.tokens.list()).map((t) => t.name)).toEqual(['admin', 'ingest-1']);
      expect(await a!.tokens.count()).toBe(2);
      expect([...(await a!.tokens.verify('bbx_admin_secret'))!.rights]).toEqual(['ingest', 'read', 'admin']);
      await expect(a!.tokens.create('ingest-1', ['read'])).rejects.toThrow();
      expect(await a!.tokens.revoke('ingest-1')).toBe(true);
      expect(await a!.tokens.revoke('ingest-1')).toBe(false);
      expect(await a!.tokens.verify(secret)).toBeNull();
    });

    it('keeps a session opened through one collector valid on another until it expires or its token changes', async () => {
      const [a, b] = await collectors(2);
      const { token } = await a!.tokens.create('reader', ['read']);
      expect(await a!.sessions.create({ idHash: 'h1', tokenId: token.id, createdAt: 100, expiresAt: 1_000 })).toBe(true);
      expect(await b!.sessions.lookup('h1', 500)).toEqual({ tokenId: token.id, name: 'reader', rights: ['read'], expiresAt: 1_000 });
      expect(await b!.sessions.lookup('h1', 1_000)).toBeNull();
      await a!.tokens.ensure('reader', 'bbx_rotated', ['read']);
      expect(await b!.sessions.lookup('h1', 500)).toBeNull();
      expect(await a!.sessions.create({ idHash: 'h2', tokenId: token.id, createdAt: 100, expiresAt: 1_000 })).toBe(true);
      await b!.sessions.remove('h2');
      expect(await a!.sessions.lookup('h2', 500)).toBeNull();
      await a!.tokens.revoke('reader');
      expect(await a!.sessions.create({ idHash: 'h3', tokenId: token.id, createdAt: 100, expiresAt: 1_000 })).toBe(false);
    });
  });
});

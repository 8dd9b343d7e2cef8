/**
 * What every storage engine must do, written once against the `Storage` interface:
 * `storageContract(name, open)` registers the suite for one engine (SQLite in
 * sqlite-contract.test.ts; the PostgreSQL engine calls it with its own `open`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryBatch } from '@breakerbox/protocol';
import { KEY_COLUMNS, PROBE_COLUMNS } from '@breakerbox/protocol';
import type { Storage } from '../../server/storage/storage.ts';
import { MAX_SAMPLES_PER_KEY_MINUTE } from '../../server/storage/sample-rows.ts';

/** An engine under test: a fresh, migrated, empty storage, and how to dispose of it. */
export type OpenStorage = () => Promise<{ storage: Storage; dispose(): Promise<void> }>;

const MIN = 60_000;
const KEY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:fp8@v1' };
const OTHER: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-x', region: 'us-east' };
const CALLS = KEY_COLUMNS.indexOf('calls');

function batch(id: string, at: number, key = KEY): TelemetryBatch {
  return {
    batch_id: id,
    source: { service: 'ticket-drafts', instance: 'pod-1', sdk: 'breakerbox-js/0.1.0' },
    events: [
      {
        type: 'window', start: at - 10_000, end: at, key, calls: 10, ok: 8, slow: 1, errors: { server: 1 }, rejected: 0, short_circuited: 0,
        retries: 1, cold_excluded: 0, half_open: { ok: 0, failed: 0 }, latency_ms: { bounds: [100, 1000], counts: [5, 4, 1] },
        input_tokens: 100, output_tokens: 50, cost_usd: 0.01,
      },
      { type: 'transition', ts: at - 5_000, key, from: 'closed', to: 'open', reason: 'error_rate' },
    ],
  };
}

/** Registers the contract suite for one engine. */
export function storageContract(engine: string, open: OpenStorage): void {
  describe(`storage contract: ${engine}`, () => {
    let s: Storage;
    let dispose: () => Promise<void>;
    // One reading of the clock: two could straddle a minute edge and leave `now` off the minute.
    const clockNow = Date.now();
    const now = clockNow - (clockNow % MIN) - 5 * MIN;
    beforeEach(async () => {
      ({ storage: s, dispose } = await open());
    });
    afterEach(async () => {
      await dispose();
    });

    it('stores a batch once, recognises its id again, and reads it back through rollups and events', async () => {
      expect(await s.telemetry.findKeyIds([KEY, OTHER])).toEqual([undefined, undefined]);
      expect(await s.telemetry.insertBatch(batch('b-1', now + 20_000), now + 20_000)).toEqual({ accepted: 2, duplicate: false });
      expect(await s.telemetry.insertBatch(batch('b-1', now + 20_000), now + 20_000)).toEqual({ accepted: 0, duplicate: true });
      const acks = await s.telemetry.insertBatches([batch('b-2', now + MIN + 20_000, OTHER), batch('b-1', now, OTHER)], now + MIN);
      expect(acks.map((a) => a.duplicate)).toEqual([false, true]);

      const [id, other] = await s.telemetry.findKeyIds([KEY, OTHER]);
      expect(id).toBeTypeOf('number');
      expect(await s.telemetry.findKeyId(KEY)).toBe(id);
      expect((await s.telemetry.listKeys()).map((k) => k.key)).toEqual([OTHER, KEY]);
      const sums = await s.rollups.keyServiceSums(now, now + 2 * MIN);
      expect([...sums.get(id!)!.values()][0]![CALLS]).toBe(10);
      expect([...sums.get(other!)!.values()][0]![CALLS]).toBe(10);
      const moves = await s.events.transitionsIn(now, now + 2 * MIN, id);
      expect(moves).toEqual([{ keyId: id, sourceId: expect.any(Number), ts: now + 15_000, toState: 'open' }]);
      expect(await s.events.opensPerInstance(now, now + 2 * MIN)).toContainEqual({ keyId: id, key: KEY, instance: 'pod-1', opens: 1 });
    });

    it('reads a list of keys in one call as it reads each of them alone, leaving the other keys out', async () => {
      const THIRD: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-x' };
      await s.telemetry.insertBatches([batch('l-1', now + 20_000), batch('l-2', now + 30_000, OTHER), batch('l-3', now + MIN + 20_000, THIRD)], now + MIN);
      // An earlier transition, so the state before the window is one to read.
      await s.telemetry.insertBatch(batch('l-0', now - 2 * MIN + 20_000, OTHER), now - MIN);
      const [id, other, third] = (await s.telemetry.findKeyIds([KEY, OTHER, THIRD])) as number[];
      const [from, to] = [now, now + 2 * MIN];
      const reads = (keys?: number | number[]) =>
        Promise.all([s.rollups.keyServiceSums(from, to, keys), s.rollups.keySources(from, to, keys), s.events.stateBefore(now, keys), s.events.transitionsIn(from, to, keys)]);
      const [sums, sources, before, within] = await reads([third!, id!]);
      const alone = await Promise.all([id!, third!].map((k) => reads(k)));
      expect([...sums.keys()].sort()).toEqual([id, third].sort());
      expect(sums).toEqual(new Map([...alone[0]![0], ...alone[1]![0]]));
      expect(sources).toEqual(new Map([...alone[0]![1], ...alone[1]![1]]));
      expect(sums.get(id!)!.values().next().value![CALLS]).toBe(10);
      expect(sources.get(third!)!.size).toBe(1);
      expect(within.map((r) => r.keyId)).toEqual([id, third].sort((a, b) => a! - b!));
      expect(within).toEqual([...alone[0]![3], ...alone[1]![3]].sort((a, b) => a.keyId - b.keyId));
      expect(before).toEqual([]);
      expect(await s.events.stateBefore(now, [other!, id!])).toEqual([{ keyId: other, sourceId: expect.any(Number), ts: now - 2 * MIN + 15_000, toState: 'open' }]);
      const none = await reads([]);
      expect(none.map((r) => (r instanceof Map ? r.size : r.length))).toEqual([0, 0, 0, 0]);
    });

    it('reads warm probe minutes per key and location, leaving out the pairs it is told to', async () => {
      const probe = (key: BreakerKey, location: string, ts: number, outcome: 'ok' | 'error') => ({ type: 'probe' as const, ts, key, location, outcome, latency_ms: { total: 200 } });
      const probes: TelemetryBatch = {
        batch_id: 'p-1', source: { service: 'prober', instance: 'p', sdk: 'breakerbox-probe/0.1.0' },
        events: [probe(KEY, 'eu-west', now + 1_000, 'ok'), probe(KEY, 'eu-west', now + 2_000, 'error'), probe(KEY, 'us-east', now + 3_000, 'error'), probe(OTHER, 'eu-west', now + MIN, 'ok')],
      };
      await s.telemetry.insertBatch(probes, now + MIN);
      const [id, other] = (await s.telemetry.findKeyIds([KEY, OTHER])) as number[];
      const read = async (except?: { keyId: number; location: string }[]) =>
        (await s.rollups.probeOutcomes(now, now + MIN, except)).map((r) => [r.keyId === id ? 'key' : 'other', r.location, r.minute - now, r.probes, r.ok]).sort();
      expect(await read()).toEqual([['key', 'eu-west', 0, 2, 1], ['key', 'us-east', 0, 1, 0], ['other', 'eu-west', MIN, 1, 1]]);
      expect(await read([{ keyId: id!, location: 'eu-west' }, { keyId: other!, location: 'us-east' }])).toEqual([['key', 'us-east', 0, 1, 0], ['other', 'eu-west', MIN, 1, 1]]);
    });

    it('stores wrong_answer probes apart from ok and error, with their evidence and served model; older probe events still fit (issue 39)', async () => {
      const base = { type: 'probe' as const, key: KEY, location: 'eu-west', latency_ms: { total: 200 } };
      const probes: TelemetryBatch = {
        batch_id: 'p-canary', source: { service: 'prober', instance: 'p', sdk: 'breakerbox-probe/0.1.0' },
        events: [
          { ...base, ts: now + 1_000, outcome: 'ok', model_served: 'gpt-4o-2024-08-06', system_fingerprint: 'fp_a' },
          { ...base, ts: now + 2_000, outcome: 'wrong_answer', status: 200, message: 'expected the word "OK", got another answer', answer_excerpt: 'Banana', model_served: 'gpt-4o-2024-11-20', system_fingerprint: 'fp_b' },
          { ...base, ts: now + 3_000, outcome: 'wrong_answer', status: 200, answer_excerpt: '' },
          // An older prober's event: none of the new fields.
          { ...base, ts: now + 4_000, outcome: 'error', error_class: 'server', status: 503 },
        ],
      };
      expect(await s.telemetry.insertBatch(probes, now + MIN)).toEqual({ accepted: 4, duplicate: false });
      const [id] = (await s.telemetry.findKeyIds([KEY])) as number[];
      const sums = (await s.rollups.probeSums(now, now + MIN)).get(id!)!.get('eu-west')!;
      const col = (c: string) => sums[PROBE_COLUMNS.indexOf(c)];
      expect([col('probes'), col('ok'), col('error'), col('slow'), col('wrong_answer')]).toEqual([4, 1, 1, 0, 2]);
      const totals = (await s.metrics.probeTotals(0, id!)).find((r) => r.keyId === id)!;
      expect(totals.values[PROBE_COLUMNS.indexOf('wrong_answer')]).toBe(2);
      const rows = (await s.events.probeEvents(now, now + MIN)).sort((a, b) => a.ts - b.ts);
      expect(rows.map((r) => [r.outcome, r.answerExcerpt, r.modelServed, r.systemFingerprint])).toEqual([
        ['ok', null, 'gpt-4o-2024-08-06', 'fp_a'],
        ['wrong_answer', 'Banana', 'gpt-4o-2024-11-20', 'fp_b'],
        ['wrong_answer', '', null, null],
        ['error', null, null, null],
      ]);
      expect(rows[1]!.message).toContain('expected the word');
      // The answer rule's read: warm probes and wrong answers per location, the latest wrong answer's evidence.
      await s.telemetry.insertBatch({ batch_id: 'p-canary-2', source: probes.source, events: [
        { ...base, location: 'us-east', ts: now + 1_500, outcome: 'ok' },
        { ...base, location: 'eu-west', ts: now + 5_000, outcome: 'wrong_answer', cold: true, status: 200, answer_excerpt: 'cold: not counted' },
      ] }, now + MIN);
      expect(await s.events.answerRows(id!, now, now + MIN)).toEqual([
        { location: 'eu-west', probes: 4, wrong: 2, latest: { ts: now + 3_000, expected: null, excerpt: '' } },
        { location: 'us-east', probes: 1, wrong: 0, latest: null },
      ]);
      expect(await s.events.answerRows(id!, now, now + 2_500)).toEqual([
        { location: 'eu-west', probes: 2, wrong: 1, latest: { ts: now + 2_000, expected: 'expected the word "OK", got another answer', excerpt: 'Banana' } },
        { location: 'us-east', probes: 1, wrong: 0, latest: null },
      ]);
    });

    it("reads one key's probes that named a served version in a range, oldest first by event time whatever the arrival order (issue 39)", async () => {
      const base = { type: 'probe' as const, location: 'eu-west', outcome: 'ok' as const, latency_ms: { total: 200 } };
      const source = { service: 'prober', instance: 'p', sdk: 'breakerbox-probe/0.1.0' };
      await s.telemetry.insertBatch({ batch_id: 'served-1', source, events: [
        { ...base, key: KEY, ts: now + 3_000, model_served: 'm', system_fingerprint: 'fp_b' },
        { ...base, key: KEY, ts: now + 1_000, model_served: 'm', system_fingerprint: 'fp_a' },
        // Names nothing: left out.
        { ...base, key: KEY, ts: now + 2_000, outcome: 'error', error_class: 'server', status: 503 },
        { ...base, key: OTHER, ts: now + 2_000, model_served: 'claude-x-1' },
      ] }, now + MIN);
      // Late: between the two above.
      await s.telemetry.insertBatch({ batch_id: 'served-2', source, events: [{ ...base, key: KEY, location: 'us-east', ts: now + 2_500, system_fingerprint: 'fp_a' }] }, now + MIN);
      const [id] = (await s.telemetry.findKeyIds([KEY])) as number[];
      expect(await s.events.servedSightings(id!, now, now + MIN)).toEqual([
        { ts: now + 1_000, seenIn: 'probe', by: 'eu-west', modelServed: 'm', systemFingerprint: 'fp_a' },
        { ts: now + 2_500, seenIn: 'probe', by: 'us-east', modelServed: null, systemFingerprint: 'fp_a' },
        { ts: now + 3_000, seenIn: 'probe', by: 'eu-west', modelServed: 'm', systemFingerprint: 'fp_b' },
      ]);
      expect(await s.events.servedSightings(id!, now + 1_001, now + 3_000)).toEqual([{ ts: now + 2_500, seenIn: 'probe', by: 'us-east', modelServed: null, systemFingerprint: 'fp_a' }]);
      // In force before 3 s: the model of 1 s (2.5 s named none), the fingerprint of 2.5 s; nothing before `since`.
      expect(await s.events.servedBefore(id!, now + 3_000, now)).toEqual({ modelServed: 'm', systemFingerprint: 'fp_a' });
      expect(await s.events.servedBefore(id!, now + MIN, now + 2_000)).toEqual({ modelServed: 'm', systemFingerprint: 'fp_b' });
      expect(await s.events.servedBefore(id!, now + 3_000, now + 1_001)).toEqual({ modelServed: null, systemFingerprint: 'fp_a' });
      // Every key's in a span, by key then time: what the /metrics counter reads.
      const [other] = (await s.telemetry.findKeyIds([OTHER])) as number[];
      const all = await s.events.servedSightingsIn(now + 1_500, now + MIN);
      const byKey = (k: number) => all.filter((r) => r.keyId === k).map((r) => [r.ts, r.by, r.systemFingerprint]);
      expect(byKey(id!)).toEqual([[now + 2_500, 'us-east', 'fp_a'], [now + 3_000, 'eu-west', 'fp_b']]);
      expect(all.filter((r) => r.keyId === other).map((r) => [r.ts, r.modelServed])).toEqual([[now + 2_000, 'claude-x-1']]);
      expect(all.map((r) => r.keyId)).toEqual([...all.map((r) => r.keyId)].sort((a, b) => a - b));
    });

    it("reads the served model of a key's call samples among its sightings, by time, with the calling service and instance (issue 39)", async () => {
      const b = batch('served-calls', now + 30_000);
      const w = b.events[0] as Extract<TelemetryBatch['events'][number], { type: 'window' }>;
      const sample = { outcome: 'error' as const, error_class: 'invalid_output' as const, status: 200, attempt: 1, duration_ms: 300 };
      w.samples = [{ ...sample, ts: now + 25_000, model_served: 'm-2' }, { ...sample, ts: now + 26_000 }];
      b.events.push({ type: 'probe', key: KEY, location: 'eu-west', outcome: 'ok', latency_ms: { total: 200 }, ts: now + 25_000, model_served: 'm-1' });
      await s.telemetry.insertBatch(b, now + MIN);
      const [id] = (await s.telemetry.findKeyIds([KEY])) as number[];
      // Same time: the probe first. The sample that names no model is left out.
      expect(await s.events.servedSightings(id!, now, now + MIN)).toEqual([
        { ts: now + 25_000, seenIn: 'probe', by: 'eu-west', modelServed: 'm-1', systemFingerprint: null },
        { ts: now + 25_000, seenIn: 'call', by: 'ticket-drafts/pod-1', modelServed: 'm-2', systemFingerprint: null },
      ]);
      // The call sample comes after the probe of the same time: its model is the one in force.
      expect(await s.events.servedBefore(id!, now + MIN, now)).toEqual({ modelServed: 'm-2', systemFingerprint: null });
    });

    it('sums completed tasks and each failover level per operation over a span of minutes, across services (taskLevelSums)', async () => {
      const tasks = (operation: string, start: number, levels: Record<string, number>) => {
        const completed = Object.values(levels).reduce((a, b) => a + b, 0);
        return { type: 'tasks' as const, start, end: start + 10_000, operation, completed, failed: 1, degraded: levels['4'] ?? 0, attempts: completed + 1, cost_usd: 0.01, levels, fallback: { invoked: 0, failed: 0 } };
      };
      const from = (service: string, id: string, events: ReturnType<typeof tasks>[]): TelemetryBatch => ({ batch_id: id, source: { service, instance: 'pod-1', sdk: 'breakerbox-js/0.1.0' }, events });
      await s.telemetry.insertBatch(from('ticket-drafts', 't-1', [tasks('draft-reply', now, { '0': 5, '3': 2 }), tasks('draft-reply', now + MIN, { '4': 3 }), tasks('tag', now, { '1': 4 })]), now + 2 * MIN);
      await s.telemetry.insertBatch(from('summaries', 't-2', [tasks('draft-reply', now + 5_000, { '0': 1, '2': 1 })]), now + 2 * MIN);
      const read = async (first: number, end: number) => (await s.rollups.taskLevelSums(first, end)).sort((a, b) => a.operation.localeCompare(b.operation));
      expect(await read(now, now + 2 * MIN)).toEqual([
        { operation: 'draft-reply', completed: 12, levels: [6, 0, 1, 2, 3] },
        { operation: 'tag', completed: 4, levels: [0, 4, 0, 0, 0] },
      ]);
      expect(await read(now + MIN, now + 2 * MIN)).toEqual([{ operation: 'draft-reply', completed: 3, levels: [0, 0, 0, 0, 3] }]);
    });

    it("reads the trigger's windows only of instances with an error, all of their windows, oldest end first, then only what is new", async () => {
      const win = (start: number, errors: Record<string, number>) => ({
        type: 'window' as const, start, end: start + 10_000, key: KEY, calls: 10, ok: 10 - Object.values(errors).reduce((a, b) => a + b, 0), slow: 0,
        errors, rejected: 0, short_circuited: 0, retries: 0, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
        latency_ms: { bounds: [100], counts: [10, 0] }, input_tokens: 0, output_tokens: 0, cost_usd: 0,
      });
      const from = (instance: string, id: string, events: ReturnType<typeof win>[]): TelemetryBatch => ({
        batch_id: id, source: { service: 'ticket-drafts', instance, sdk: 'breakerbox-js/0.1.0' }, events,
      });
      await s.telemetry.insertBatch(from('healthy', 'w-1', [win(now, {}), win(now + 10_000, {})]), now + 30_000);
      // The erring instance's healthy window after its failures is kept: it ends the failing run.
      await s.telemetry.insertBatch(from('erring', 'w-2', [win(now, { server: 4 }), win(now + 10_000, { timeout: 6 }), win(now + 20_000, {})]), now + 30_000);
      await s.telemetry.insertBatch(from('erring', 'w-3', [win(now - 60_000, { server: 9 })]), now + 30_000);
      const first = await s.suspicions.windowsAfter(null, now + 10_000);
      expect(first.complete).toBe(true);
      const windows = first.windows;
      expect(windows.map((w) => [w.end, w.errors])).toEqual([[now + 10_000, { server: 4 }], [now + 20_000, { timeout: 6 }], [now + 30_000, {}]]);
      expect(new Set(windows.map((w) => w.sourceId)).size).toBe(1);

      // From the cursor: what was stored since (an engine that cannot tell reads it all again).
      await s.telemetry.insertBatch(from('erring', 'w-4', [win(now + 30_000, { server: 7 })]), now + 40_000);
      const next = await s.suspicions.windowsAfter(first.cursor, now + 10_000);
      const ends = next.windows.map((w) => w.end).sort((a, b) => a - b);
      if (next.complete) expect(ends).toEqual([now + 10_000, now + 20_000, now + 30_000, now + 40_000]);
      else expect(next.windows.map((w) => [w.end, w.errors])).toEqual([[now + 40_000, { server: 7 }]]);
      const none = await s.suspicions.windowsAfter(next.cursor, now + 10_000);
      if (!none.complete) expect(none.windows).toEqual([]);
    });

    it('verifies tokens by secret, lists them by name, and forgets revoked ones', async () => {
      const { secret, token } = await s.tokens.create('ci', ['ingest']);
      await s.tokens.ensure('admin', 'bbx_known_secret_for_the_contract', ['admin']);
      expect((await s.tokens.verify(secret))?.name).toBe('ci');
      expect([...(await s.tokens.verify('bbx_known_secret_for_the_contract'))!.rights].sort()).toEqual(['admin', 'ingest', 'read']);
      expect(await s.tokens.verify('bbx_wrong')).toBeNull();
      expect((await s.tokens.list()).map((t) => t.name)).toEqual(['admin', 'ci']);
      expect(await s.tokens.count()).toBe(2);
      expect(await s.tokens.revoke('ci')).toBe(true);
      expect(await s.tokens.revoke('ci')).toBe(false);
      expect(await s.tokens.count()).toBe(1);
      expect((await s.tokens.list()).find((t) => t.id === token.id)?.revokedAt).toBeTypeOf('number');
    });

    it('binds a session to its token: it ends when the token is rotated, and a revoked token gets none', async () => {
      const { token } = await s.tokens.create('board', ['read']);
      expect(await s.sessions.create({ idHash: 'h1', tokenId: token.id, createdAt: now, expiresAt: now + MIN })).toBe(true);
      expect(await s.sessions.lookup('h1', now + 1)).toEqual({ tokenId: token.id, name: 'board', rights: ['read'], expiresAt: now + MIN });
      expect(await s.sessions.lookup('h1', now + MIN)).toBeNull();
      await s.tokens.ensure('board', 'bbx_rotated_secret_for_the_contract', ['read']);
      expect(await s.sessions.lookup('h1', now + 1)).toBeNull();
      await s.tokens.revoke('board');
      expect(await s.sessions.create({ idHash: 'h2', tokenId: token.id, createdAt: now, expiresAt: now + MIN })).toBe(false);
    });

    it('applies an evaluation in order, lists alerts newest first, and keeps notification state per group and notifier', async () => {
      const base = { rule: 'open_share' as const, keyId: null, location: null, operation: null, severity: 'warning' as const, summary: 's', value: 0.5, verdict: null, hint: null, fired_at: null, resolved_at: null };
      const [a, b] = await s.alerts.apply([
        { op: 'insert', alert: { ...base, fingerprint: '0000000000000001', state: 'pending', started_at: now, updated_at: now } },
        { op: 'insert', alert: { ...base, fingerprint: '0000000000000002', state: 'pending', started_at: now + 1, updated_at: now + 1 } },
      ]);
      await s.alerts.apply([
        { op: 'update', id: a!, fields: { ...base, state: 'firing', fired_at: now + 2, summary: 'fired', updated_at: now + 2 } },
        { op: 'remove', id: b! },
        { op: 'group', id: a!, groupKey: 'incident-1' },
      ]);
      const unresolved = await s.alerts.unresolved();
      expect([...unresolved.keys()]).toEqual(['0000000000000001']);
      expect(unresolved.get('0000000000000001')).toMatchObject({ id: a, state: 'firing', summary: 'fired', group_key: 'incident-1', key: null });
            expect((await s.alerts.toNotify(now)).map((x) => x.id)).toEqual([a]);
      const [c] = await s.alerts.apply([{ op: 'insert', alert: { ...base, fingerprint: '0000000000000003', state: 'firing', started_at: now + 9, fired_at: now + 9, updated_at: now + 9 } }]);
      expect((await s.alerts.list({ since: 0, limit: 10 })).map((x) => x.id)).toEqual([c, a]);
      expect((await s.alerts.list({ since: 0, limit: 1 })).map((x) => x.id)).toEqual([c]);
      expect((await s.alerts.list({ since: 0, limit: 10, fingerprint: '0000000000000001' })).map((x) => x.id)).toEqual([a]);
      expect(await s.alerts.countsByState()).toEqual([{ state: 'firing', severity: 'warning', n: 2 }]);

      await s.notifications.recordGroup('incident-1', 'hook', 'firing', true, now + 3, 'digest-1');
      await s.notifications.recordGroup('incident-1', 'hook', 'repeat', false, now + 4, 'digest-2');
      expect(await s.notifications.groupState('incident-1', 'hook')).toEqual({ last_event: 'firing', last_sent_at: now + 3, last_attempt_at: now + 4, last_status: 'failed', digest: 'digest-1' });
      expect(await s.notifications.groupState('incident-1', 'slack')).toBeUndefined();
      await s.notifications.recordAlert(a!, 'am', 'firing', true, now + 5);
      expect(await s.notifications.alertState(a!, 'am')).toMatchObject({ last_event: 'firing', last_status: 'ok' });

      const d = { notifier: 'hook', type: 'webhook', alert_id: a!, fingerprint: '0000000000000001', rule: 'open_share', group_key: 'incident-1', event: 'firing' as const };
      const first = await s.notifications.startDelivery({ ...d, created_at: now });
      await s.notifications.startDelivery({ ...d, notifier: 'slack', type: 'slack', created_at: now + 1 });
      await s.notifications.finishDelivery(first, { status: 'ok', attempts: 1, http_status: 200, error: null, finished_at: now + 2 });
      await s.notifications.failAbandoned(now + 3);
      const all = await s.notifications.deliveries({ limit: 10 });
      expect(all.map((x) => [x.notifier, x.status])).toEqual([['slack', 'failed'], ['hook', 'ok']]);
      expect((await s.notifications.deliveries({ limit: 10, status: 'ok', fingerprint: 'incident-1' })).map((x) => x.id)).toEqual([first]);
    });

    it('records a finished delivery and what its notifier was told in one write: both or neither', async () => {
      const d = { notifier: 'hook', type: 'webhook', alert_id: 1, fingerprint: '0000000000000001', rule: 'open_share', group_key: 'incident-9', event: 'firing' as const };
      const done = { status: 'ok' as const, attempts: 1, http_status: 200, error: null, finished_at: now + 2 };
      const ok = await s.notifications.startDelivery({ ...d, created_at: now });
      await s.notifications.finishDelivery(ok, done, { scope: 'group', groupKey: 'incident-9', notifier: 'hook', event: 'firing', ok: true, at: now + 1, digest: 'd-9' });
      expect(await s.notifications.groupState('incident-9', 'hook')).toEqual({ last_event: 'firing', last_sent_at: now + 1, last_attempt_at: now + 1, last_status: 'ok', digest: 'd-9' });
      const perAlert = await s.notifications.startDelivery({ ...d, notifier: 'am', type: 'alertmanager', created_at: now });
      await s.notifications.finishDelivery(perAlert, done, { scope: 'alert', alertId: 1, notifier: 'am', event: 'repeat', ok: true, at: now + 1 });
      expect(await s.notifications.alertState(1, 'am')).toEqual({ last_event: 'repeat', last_sent_at: now + 1, last_attempt_at: now + 1, last_status: 'ok' });

      // The notify state's write fails (no notifier): the delivery is not recorded as finished either.
      const broken = await s.notifications.startDelivery({ ...d, created_at: now + 3 });
      const told = { scope: 'group', groupKey: 'incident-10', notifier: null as unknown as string, event: 'firing', ok: true, at: now + 3, digest: 'd' } as const;
      await expect(s.notifications.finishDelivery(broken, done, told)).rejects.toThrow();
      expect((await s.notifications.deliveries({ limit: 10 })).find((x) => x.id === broken)).toMatchObject({ status: 'pending', finished_at: null });
    });

    it('keeps silences, answers the active ones, and ends one early', async () => {
      const matchers = [{ name: 'provider' as const, value: 'open.*', regex: true }];
      await s.silences.insert({ id: 'later', matchers, starts_at: now + MIN, ends_at: now + 3 * MIN, comment: 'c', created_by: 'me', created_at: now });
      await s.silences.insert({ id: 'now', matchers, starts_at: now, ends_at: now + 2 * MIN, comment: 'c', created_by: 'me', created_at: now });
      expect((await s.silences.active(now + 1)).map((x) => x.id)).toEqual(['now']);
      expect((await s.silences.listEndingAfter(now)).map((x) => x.id)).toEqual(['later', 'now']);
      expect(await s.silences.expire('now', now + 10)).toMatchObject({ id: 'now', ends_at: now + 10, matchers });
      expect(await s.silences.active(now + 11)).toEqual([]);
      expect(await s.silences.expire('missing', now)).toBeNull();
    });

    it('stores window samples bounded per key and minute, reads them newest first with filters, and prunes them with the raw events', async () => {
      const sampleBatch = (id: string, instance: string, at: number, n: number): TelemetryBatch => {
        const b = batch(id, at);
        const w = b.events[0] as Extract<TelemetryBatch['events'][number], { type: 'window' }>;
        w.samples = Array.from({ length: n }, (_, i) => ({
          ts: at - 1_000 + i, outcome: i % 2 ? 'slow' as const : 'error' as const, ...(i % 2 ? {} : { error_class: 'server' as const, status: 503 }),
          upstream_request_id: `${id}_${i}`, attempt: 1, duration_ms: 900,
        }));
        return { ...b, source: { ...b.source, instance } };
      };
      const at = now + 30_000;
      // Two batches in one transaction and a third alone: 10 + 10 + 10 samples in one minute.
      await s.telemetry.insertBatches([sampleBatch('s-1', 'pod-1', at, 10), sampleBatch('s-2', 'pod-2', at + 10, 10)], at + 20);
      await s.telemetry.insertBatch(sampleBatch('s-3', 'pod-3', at + 20, 10), at + 30);
      const id = (await s.telemetry.findKeyId(KEY))!;
      const all = await s.samples.forKey(id, { from: now, to: now + MIN, limit: 100 });
      expect(all).toHaveLength(MAX_SAMPLES_PER_KEY_MINUTE);
      expect(all[0]).toMatchObject({ service: 'ticket-drafts', instance: 'pod-2', sample: { upstream_request_id: 's-2_9', outcome: 'slow' } });
      expect(all.every((r) => r.instance !== 'pod-3')).toBe(true);
      const server = await s.samples.forKey(id, { from: now, to: now + MIN, limit: 3, errorClass: 'server', instance: 'pod-1' });
      expect(server.map((r) => r.sample.upstream_request_id)).toEqual(['s-1_8', 's-1_6', 's-1_4']);
      expect(await s.samples.forKey(id, { from: now, to: now + MIN, limit: 3, errorClass: 'slow', service: 'other' })).toEqual([]);
      // The evidence's read: the latest failed (never slow) samples per key, in one query.
      const latest = await s.samples.latestFailed([id, id + 999], now, now + MIN, 2);
      expect([...latest.keys()]).toEqual([id]);
      expect(latest.get(id)!.map((r) => r.sample.upstream_request_id)).toEqual(['s-2_8', 's-2_6']);
      expect((await s.samples.latestFailed([], now, now + MIN, 2)).size).toBe(0);
      const { deleted } = await s.retention.prune(now + 400 * 86_400_000);
      expect(deleted).toMatchObject({ call_samples: MAX_SAMPLES_PER_KEY_MINUTE });
      expect(await s.samples.forKey(id, { from: now, to: now + MIN, limit: 100 })).toEqual([]);
    });

    it('stores shadow windows, sums them per primary and candidate with merged histograms, and prunes them with the rollups', async () => {
      const side = (ok: number, errors: Record<string, number>, cost: number, latency: number[]) => ({
        ok, errors, refusals: 0, latency_ms: { bounds: [100, 1000], counts: latency }, output_tokens: 10 * ok, cost_usd: cost,
      });
      const candidate = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1', region: 'eu' };
      const shadowBatch = (id: string, instance: string, at: number): TelemetryBatch => ({
        batch_id: id,
        source: { service: 'ticket-drafts', instance, sdk: 'breakerbox-js/0.1.0' },
        events: [{
          type: 'shadow', start: at - 10_000, end: at, key: KEY, candidate, pairs: 4, dropped: 1,
          primary: { ...side(4, {}, 0.004, [4, 0, 0]), json: { checked: 4, valid: 4 } },
          shadow: { ...side(3, { truncated: 1 }, 0.012, [0, 3, 1]), json: { checked: 3, valid: 2 }, ttft_ms: { bounds: [100, 1000], counts: [1, 0, 0] } },
        }],
      });
      await s.telemetry.insertBatches([shadowBatch('sh-1', 'pod-1', now + 10_000), shadowBatch('sh-2', 'pod-2', now + 20_000)], now + 20_000);
      const id = (await s.telemetry.findKeyId(KEY))!;
      expect(await s.telemetry.findKeyIds([{ ...candidate }])).toEqual([undefined]);
      const [pair, ...rest] = await s.shadow.pairs(now, now + MIN);
      expect(rest).toEqual([]);
      expect(pair).toMatchObject({
        keyId: id, candidate, pairs: 8, dropped: 2, services: ['ticket-drafts'], lastEnd: now + 20_000,
        primary: { ok: 8, errors: {}, json: { checked: 8, valid: 8 }, validation: null, outputTokens: 80 },
        shadow: { ok: 6, errors: { truncated: 2 }, json: { checked: 6, valid: 4 }, validation: null, outputTokens: 60 },
      });
      expect(pair!.shadow.costUsd).toBeCloseTo(0.024, 9);
      // Re-bucketed onto the rollup bounds: 100 ms is a rollup bound, 1000 ms too.
      expect(pair!.primary.latency.reduce((a, b) => a + b, 0)).toBe(8);
      expect(pair!.shadow.latency.reduce((a, b) => a + b, 0)).toBe(8);
      expect(pair!.shadow.ttft.reduce((a, b) => a + b, 0)).toBe(2);
      expect(await s.shadow.pairs(now, now + MIN, id + 999)).toEqual([]);
      expect(await s.shadow.pairs(now + MIN, now + 2 * MIN)).toEqual([]);
      const { deleted } = await s.retention.prune(now + 400 * 86_400_000);
      expect(deleted).toMatchObject({ shadow_windows: 2 });
      expect(await s.shadow.pairs(now, now + MIN)).toEqual([]);
    });

    it("keeps each key's latest provider deprecation signal: the latest window's dates, every window's answers", async () => {
      const signalled = (id: string, at: number, signal: Record<string, number>, key = KEY): TelemetryBatch => {
        const b = batch(id, at, key);
        b.events = [{ ...b.events[0]!, deprecation_signal: { responses: 2, ...signal } } as TelemetryBatch['events'][number]];
        return b;
      };
      expect(await s.telemetry.providerSignals()).toEqual(new Map());
      // Two windows of one key in one transaction (merged, the later one's dates), one of another key, one without a signal.
      await s.telemetry.insertBatches([
        signalled('sig-2', now + 20_000, { sunset_at: 2_000_000, deprecation_at: 1_000 }),
        signalled('sig-1', now + 10_000, { sunset_at: 1_500_000 }),
        signalled('sig-o', now + 10_000, { deprecation_at: 5_000 }, OTHER),
        batch('plain', now + 30_000),
      ], now + 30_000);
      const id = (await s.telemetry.findKeyId(KEY))!;
      const other = (await s.telemetry.findKeyId(OTHER))!;
      expect(await s.telemetry.providerSignals()).toEqual(new Map([
        [id, { deprecationAt: 1_000, sunsetAt: 2_000_000, responses: 4, firstSeen: now + 10_000, lastSeen: now + 20_000 }],
        [other, { deprecationAt: 5_000, sunsetAt: null, responses: 2, firstSeen: now + 10_000, lastSeen: now + 10_000 }],
      ]));
      // A later window without a Sunset withdraws it; an older one arriving late changes no date.
      await s.telemetry.insertBatch(signalled('sig-3', now + 40_000, { deprecation_at: 1_000 }), now + 40_000);
      await s.telemetry.insertBatch(signalled('sig-0', now, { sunset_at: 9 }), now + 40_000);
      expect((await s.telemetry.providerSignals()).get(id)).toEqual({ deprecationAt: 1_000, sunsetAt: null, responses: 8, firstSeen: now, lastSeen: now + 40_000 });
    });

    it("keeps each collector's feed counts by service and each run's deliveries, and lists the runs still running", async () => {
      const d = s.drills;
      await d.writeFeeds('c-a', new Map([['drafts', 2], ['billing', 1]]), now);
      await d.writeFeeds('c-b', new Map([['drafts', 1]]), now);
      expect(await d.feedsOf(now, 'me')).toEqual(new Map([['drafts', 3], ['billing', 1]]));
      expect(await d.feedsOf(now, 'c-a')).toEqual(new Map([['drafts', 1]]));
      // A rewrite replaces the collector's rows; a service it no longer holds is gone; old rows are not read.
      await d.writeFeeds('c-a', new Map([['search', 4]]), now + 1_000);
      expect(await d.feedsOf(now, 'me')).toEqual(new Map([['drafts', 1], ['search', 4]]));
      expect(await d.feedsOf(now + 1, 'me')).toEqual(new Map([['search', 4]]));
      await d.writeFeeds('c-a', new Map(), now + 2_000);
      expect(await d.feedsOf(now, 'me')).toEqual(new Map([['drafts', 1]]));

      const run = { id: 'run-1', service: 'drafts', kinds: ['primary_down' as const], keys: null, stepMs: MIN, issuedAt: now, endsAt: now + MIN,
        stoppedAt: null, stoppedBy: null, createdBy: 'ci', updatedAt: now, report: null, judgedAt: null };
      await d.insertRun(run);
      expect(await d.delivered('run-1')).toBe(0);
      await d.recordDelivery('run-1', 'c-a', 2, now);
      await d.recordDelivery('run-1', 'c-a', 1, now + 100);
      await d.recordDelivery('run-1', 'c-b', 3, now + 200);
      expect(await d.delivered('run-1')).toBe(6);
      expect((await d.running(now + 1)).map((r) => r.id)).toEqual(['run-1']);
      expect(await d.running(now + MIN)).toEqual([]);
    });

    it('adds passthrough counts up per arrival minute and all-time, reads them over a range, and prunes the minutes with the rollups', async () => {
      const GEMINI = { host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent' };
      const counts = (id: string, service: string, list: TelemetryBatch['passthrough'], events = false): TelemetryBatch => ({
        batch_id: id, source: { service, instance: 'pod-1' }, events: events ? batch(`${id}-e`, now + 10_000).events : [], passthrough: list,
      });
      expect(await s.telemetry.passthrough(now - MIN, now + 10 * MIN)).toEqual([]);
      // Two batches of one service in one transaction (one row), one of another, one beside events; then a duplicate.
      await s.telemetry.insertBatches([
        counts('p-1', 'drafts', [{ ...GEMINI, method: 'POST', count: 3, why: 'unknown endpoint' }, { host: 'api.openai.com', path_family: '/v1/files', method: 'POST', count: 1 }]),
        counts('p-2', 'drafts', [{ ...GEMINI, method: 'POST', count: 2, why: 'no model in the body' }]),
        counts('p-3', 'search', [{ ...GEMINI, method: 'POST', count: 1 }], true),
      ], now + 10_000);
      expect(await s.telemetry.insertBatch(counts('p-1', 'drafts', [{ ...GEMINI, method: 'POST', count: 3 }]), now + MIN)).toEqual({ accepted: 0, duplicate: true });
      await s.telemetry.insertBatch(counts('p-4', 'drafts', [{ ...GEMINI, method: 'GET', count: 4 }, { ...GEMINI, method: 'POST', count: 10 }]), now + 2 * MIN + 5_000);
      expect(await s.telemetry.passthrough(now, now + 10 * MIN)).toEqual([
        { service: 'drafts', ...{ host: GEMINI.host, pathFamily: GEMINI.path_family }, method: 'POST', requests: 15, why: 'no model in the body', lastMinute: now + 2 * MIN },
        { service: 'drafts', host: GEMINI.host, pathFamily: GEMINI.path_family, method: 'GET', requests: 4, why: null, lastMinute: now + 2 * MIN },
        { service: 'drafts', host: 'api.openai.com', pathFamily: '/v1/files', method: 'POST', requests: 1, why: null, lastMinute: now },
        { service: 'search', host: GEMINI.host, pathFamily: GEMINI.path_family, method: 'POST', requests: 1, why: null, lastMinute: now },
      ]);
      // The range is by arrival minute: only the first minute's.
      expect((await s.telemetry.passthrough(now, now + MIN)).map((r) => r.requests)).toEqual([5, 1, 1]);
      // All-time per service, host and path family (methods summed), for /metrics.
      expect(await s.metrics.passthroughTotals()).toEqual([
        { service: 'drafts', host: 'api.openai.com', pathFamily: '/v1/files', requests: 1 },
        { service: 'drafts', host: GEMINI.host, pathFamily: GEMINI.path_family, requests: 19 },
        { service: 'search', host: GEMINI.host, pathFamily: GEMINI.path_family, requests: 1 },
      ]);
      const { deleted } = await s.retention.prune(now + 400 * 86_400_000);
      expect(deleted).toMatchObject({ passthrough_minutes: 5 });
      expect(await s.telemetry.passthrough(now, now + 10 * MIN)).toEqual([]);
      expect((await s.metrics.passthroughTotals()).map((r) => r.requests)).toEqual([1, 19, 1]);
    });

    it('prunes every table in one pass and reports what it deleted', async () => {
      await s.telemetry.insertBatch(batch('old', now), now);
      const { deleted } = await s.retention.prune(now + 400 * 86_400_000);
      expect(deleted).toMatchObject({ window_events: 1, transition_events: 1, batches: 1, key_minutes: 1, sessions: 0, alerts: 0 });
      expect((await s.rollups.keyServiceSums(now - MIN, now + MIN)).size).toBe(0);
    });
  });
}

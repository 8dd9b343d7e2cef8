import { minuteOf, type TelemetryBatch, type TelemetryEvent } from '@breakerbox/protocol';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { manualClock } from '../../server/clock.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { createTelemetryStore } from '../../server/storage/sqlite/telemetry-store.ts';
import { createPostgresStorage, type PostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { KEY, batch, oneOfEach, tempDir, windowEvent } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster();

const clock = manualClock(Date.now());

/** A fresh database, and `n` collectors' storages on it. */
async function collectors(n: number): Promise<PostgresStorage[]> {
  const url = await postgres.database('engine');
  const out: PostgresStorage[] = [];
  for (let i = 0; i < n; i++) {
    const s = await createPostgresStorage({ url, clock, retryAfterS: 1, retention: RETENTION });
    postgres.defer(() => s.close());
    out.push(s);
  }
  return out;
}

/** A SQLite database with the same batches written by the embedded engine's write path. */
function sqliteWith(batches: TelemetryBatch[], receivedAt: number) {
  const tmp = tempDir();
  postgres.defer(tmp.cleanup);
  const db = openDatabase(join(tmp.dir, 'db.sqlite'));
  postgres.defer(() => db.close());
  applyMigrations(db);
  const store = createTelemetryStore(db);
  for (const b of batches) store.insertBatch(b, receivedAt);
  return db;
}

/** Rollup and totals tables with their ids replaced by the names behind them, as sorted JSON lines: comparable across engines. */
const ROLLUP_DUMPS: Record<string, string> = {
  key_minutes: 'SELECT m.*, k.provider, k.model, k.region, v.name AS service FROM key_minutes m JOIN keys k ON k.id = m.key_id JOIN services v ON v.id = m.service_id',
  key_minute_sources: `SELECT m.*, k.model, s.instance, v.name AS service FROM key_minute_sources m JOIN keys k ON k.id = m.key_id
    JOIN sources s ON s.id = m.source_id JOIN services v ON v.id = s.service_id`,
  task_minutes: 'SELECT m.*, v.name AS service FROM task_minutes m JOIN services v ON v.id = m.service_id',
  task_key_minutes: 'SELECT m.*, k.model, v.name AS service FROM task_key_minutes m JOIN keys k ON k.id = m.key_id JOIN services v ON v.id = m.service_id',
  probe_minutes: 'SELECT m.*, k.model FROM probe_minutes m JOIN keys k ON k.id = m.key_id',
  key_totals: 'SELECT m.*, k.model, v.name AS service FROM key_totals m JOIN keys k ON k.id = m.key_id JOIN services v ON v.id = m.service_id',
  probe_totals: 'SELECT m.*, k.model FROM probe_totals m JOIN keys k ON k.id = m.key_id',
  task_totals: 'SELECT m.*, v.name AS service FROM task_totals m JOIN services v ON v.id = m.service_id',
  key_transition_totals: 'SELECT m.*, k.model, v.name AS service FROM key_transition_totals m JOIN keys k ON k.id = m.key_id JOIN services v ON v.id = m.service_id',
  sources: 'SELECT s.instance, s.sdk, s.dropped_events, s.first_seen, s.last_seen, v.name AS service FROM sources s JOIN services v ON v.id = s.service_id',
  keys: 'SELECT provider, endpoint, model, region, first_seen, last_seen FROM keys',
  batches: 'SELECT batch_id, received_at, events FROM batches',
};
const normalise = (rows: Record<string, unknown>[]) =>
  rows.map((r) => {
    const out = { ...r };
    for (const id of ['key_id', 'service_id', 'source_id']) delete out[id];
    return JSON.stringify(Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1))));
  }).sort();

async function dumpPostgres(s: PostgresStorage): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, sql] of Object.entries(ROLLUP_DUMPS)) out[table] = normalise((await s.pool.query(sql)).rows);
  return out;
}
function dumpSqlite(db: ReturnType<typeof openDatabase>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(ROLLUP_DUMPS).map(([table, sql]) => [table, normalise(db.prepare(sql).all() as Record<string, unknown>[])]));
}

/** Traffic over two minutes, two services, three instances, two keys, every event type. */
function traffic(): TelemetryBatch[] {
  const start = minuteOf(Date.now() - 180_000) + 2_000;
  const other = { ...KEY, model: 'openai/gpt-oss-120b:free@2025', region: undefined };
  const w = (minute: number, calls: number, key = KEY) =>
    windowEvent({ start: start + minute * 60_000, end: start + minute * 60_000 + 10_000, calls, ok: calls - 2, key });
  const events = (extra: TelemetryEvent[]) => [...oneOfEach(), ...extra];
  return [
    batch(events([w(0, 10), w(1, 20), w(0, 7, other)]), { service: 'drafts', instance: 'pod-1' }),
    batch(events([w(0, 30), w(1, 5, other)]), { service: 'drafts', instance: 'pod-2' }),
    batch([w(1, 3), { type: 'transition', ts: start + 61_000, key: other, from: null, to: 'closed', reason: 'created' },
      { type: 'probe', ts: start + 5_000, key: other, location: 'us-east', outcome: 'ok', latency_ms: { total: 240 }, cold: true, cost_usd: 0.0001 }],
    { service: 'search', instance: 'pod-1' }),
    { ...batch([w(0, 1)], { service: 'search', instance: 'pod-9' }), dropped_events: 12 },
  ];
}

describe.skipIf(!postgres.available)('PostgreSQL engine: ingest', () => {
  it('stores the same rollups, totals, keys and sources as the SQLite engine for the same batches', async () => {
    const [pg] = await collectors(1);
    const batches = traffic();
    const receivedAt = Date.now();
    for (const b of batches) expect(await pg!.telemetry.insertBatch(b, receivedAt)).toEqual({ accepted: b.events.length, duplicate: false });
    const sqlite = dumpSqlite(sqliteWith(batches, receivedAt));
    const postgres = await dumpPostgres(pg!);
    expect(postgres.key_minutes!.length).toBeGreaterThan(3);
    expect(postgres).toEqual(sqlite);
  });

  it('bumps each late hour by its late rollup rows as SQLite does, one bump per statement (migration 031)', async () => {
    const [pg] = await collectors(1);
    // A backlog after an outage: two hours ago and one hour ago, sent now, some minutes twice.
    const late = (hoursAgo: number) => minuteOf(Date.now() - hoursAgo * 3_600_000);
    const w = (start: number, key = KEY) => windowEvent({ start, end: start + 10_000, key });
    const other = { ...KEY, model: 'late-model' };
    const batches = [
      batch([w(late(2)), w(late(2) + 60_000), w(late(2), other), w(late(1))], { service: 'drafts', instance: 'pod-1' }),
      batch([w(late(2)), w(late(1)), w(late(1) + 120_000, other)], { service: 'drafts', instance: 'pod-2' }),
    ];
    const receivedAt = Date.now();
    for (const b of batches) await pg!.telemetry.insertBatch(b, receivedAt);
    const sqlite = sqliteWith(batches, receivedAt).prepare('SELECT hour, version FROM rollup_hour_changes ORDER BY hour').all();
    const postgres = (await pg!.pool.query('SELECT hour, version FROM rollup_hour_changes ORDER BY hour')).rows;
    expect(postgres.length).toBeGreaterThanOrEqual(2);
    expect(postgres).toEqual(sqlite);
  });

  it('keeps raw events with their JSON fields intact', async () => {
    const [pg] = await collectors(1);
    const b = batch(oneOfEach());
    await pg!.telemetry.insertBatch(b, Date.now());
    const counts = (await pg!.pool.query(`SELECT (SELECT count(*) FROM window_events) AS w, (SELECT count(*) FROM transition_events) AS t,
      (SELECT count(*) FROM task_events) AS k, (SELECT count(*) FROM config_events) AS c, (SELECT count(*) FROM probe_events) AS p`)).rows[0];
    expect(counts).toEqual({ w: 1, t: 1, k: 1, c: 1, p: 1 });
    const parsed = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? JSON.parse(v) : v]));
    const w = parsed((await pg!.pool.query('SELECT errors, latency, ttft, cost_usd, "end" FROM window_events')).rows[0]);
    const sent = b.events[0] as Extract<TelemetryEvent, { type: 'window' }>;
    expect(w).toEqual({ errors: sent.errors, latency: sent.latency_ms, ttft: sent.ttft_ms, cost_usd: sent.cost_usd, end: sent.end });
    const c = parsed((await pg!.pool.query('SELECT settings, fallbacks, warnings FROM config_events')).rows[0]);
    const cfg = b.events[3] as Extract<TelemetryEvent, { type: 'config' }>;
    expect(c).toEqual({ settings: cfg.settings, fallbacks: cfg.fallbacks, warnings: cfg.warnings });
  });

  it('reads keys, sources and services back through the interface, model ids exactly as sent', async () => {
    const [pg] = await collectors(1);
    for (const b of traffic()) await pg!.telemetry.insertBatch(b, 1_000);
    const keys = await pg!.telemetry.listKeys();
    expect(keys.map((k) => k.key)).toEqual([KEY, { provider: KEY.provider, endpoint: KEY.endpoint, model: 'openai/gpt-oss-120b:free@2025' }].sort((a, b) => (a.model < b.model ? -1 : 1)));
    expect([...(await pg!.telemetry.keys()).values()]).toEqual(keys);
    const id = await pg!.telemetry.findKeyId(KEY);
    expect(id).toBe(keys.find((k) => k.key.model === KEY.model)!.id);
    expect(await pg!.telemetry.findKeyIds([{ ...KEY, model: 'never-seen' }, KEY])).toEqual([undefined, id]);
    const services = await pg!.telemetry.services();
    expect([...services.values()].sort()).toEqual(['drafts', 'search']);
    const sources = [...(await pg!.telemetry.sources()).values()].map((s) => `${s.service}/${s.instance}`).sort();
    expect(sources).toEqual(['drafts/pod-1', 'drafts/pod-2', 'search/pod-1', 'search/pod-9']);
  });

  it('recognises a batch id stored through another collector, and stores it once when both get it at the same moment', async () => {
    const [a, b] = await collectors(2);
    const first = batch([windowEvent()]);
    expect(await a!.telemetry.insertBatch(first, 1)).toEqual({ accepted: 1, duplicate: false });
    expect(await b!.telemetry.insertBatch(first, 2)).toEqual({ accepted: 0, duplicate: true });
    const twin = batch([windowEvent(), windowEvent()]);
    const acks = await Promise.all([a!.telemetry.insertBatch(twin, 3), b!.telemetry.insertBatch(twin, 3)]);
    expect(acks.map((x) => x.duplicate).sort()).toEqual([false, true]);
    const n = (await a!.pool.query('SELECT count(*)::int AS n FROM window_events')).rows[0].n;
    expect(n).toBe(3);
    const calls = (await a!.pool.query('SELECT sum(calls)::int AS n FROM key_minutes')).rows[0].n;
    expect(calls).toBe(3 * 120);
  });

  it('stores several batches all or none, a repeated id among them once', async () => {
    const [pg] = await collectors(1);
    const one = batch([windowEvent()]);
    const acks = await pg!.telemetry.insertBatches([one, batch([windowEvent()]), one], 5);
    expect(acks).toEqual([{ accepted: 1, duplicate: false }, { accepted: 1, duplicate: false }, { accepted: 0, duplicate: true }]);
    const broken = batch([windowEvent({ calls: 1.5 })]);
    await expect(pg!.telemetry.insertBatches([batch([windowEvent()]), broken], 6)).rejects.toThrow();
    expect((await pg!.pool.query('SELECT count(*)::int AS n FROM batches')).rows[0].n).toBe(2);
    expect((await pg!.pool.query('SELECT count(*)::int AS n FROM window_events')).rows[0].n).toBe(2);
  });

  it('sums concurrent batches from two collectors into the same rollup rows without losing any', async () => {
    const [a, b] = await collectors(2);
    const start = minuteOf(Date.now() - 120_000) + 1_000;
    const make = (instance: string) => batch([windowEvent({ start, end: start + 10_000, calls: 7, ok: 7, errors: {} })], { service: 'drafts', instance });
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a! : b!).telemetry.insertBatch(make(`pod-${i % 4}`), 10)));
    const row = (await a!.pool.query('SELECT sum(calls)::int AS calls, sum(windows)::int AS windows FROM key_minutes')).rows[0];
    expect(row).toEqual({ calls: 140, windows: 20 });
    const totals = (await a!.pool.query('SELECT calls FROM key_totals')).rows;
    expect(totals).toEqual([{ calls: 140 }]);
  });
});

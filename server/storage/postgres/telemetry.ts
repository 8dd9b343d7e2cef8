import { keyId as keyCacheId, type BreakerKey, type TelemetryAck, type TelemetryBatch } from '@breakerbox/protocol';
import type { KeyInfo, SourceInfo, TelemetryPart } from '../parts/telemetry.ts';
import { RollupAccumulator } from '../rollups.ts';
import { KEY_CACHE_MAX, keyFromRow, regionColumn } from '../key-rows.ts';
import { SIGNALS_ALL, SIGNAL_UPSERT, SignalAccumulator, signalsOf, type SignalRow } from '../signal-rows.ts';
import { PASSTHROUGH_MINUTE_UPSERT, PASSTHROUGH_RANGE, PASSTHROUGH_TOTAL_UPSERT, PassthroughAccumulator, passthroughRowsOf } from '../passthrough-rows.ts';
import { ChangeLogRows } from './change-log.ts';
import { EventColumns } from './event-writes.ts';
import { inTransaction, type PgClient, type PgPool } from './pool.ts';
import { writeRollups } from './rollup-writes.ts';

/** Binary order, as SQLite sorts text: the database's collation may be a locale's. */
const KEY_ORDER = 'provider COLLATE "C", endpoint COLLATE "C", model COLLATE "C", region COLLATE "C"';

const SQL = {
  batches: `INSERT INTO batches (batch_id, received_at, events)
    SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::bigint[]) ON CONFLICT (batch_id) DO NOTHING RETURNING batch_id`,
  // One statement resolves every key of the transaction and moves last_seen forward; rows
  // in key order so concurrent collectors lock them in the same order.
  keys: `INSERT INTO keys (provider, endpoint, model, region, first_seen, last_seen)
    SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS k(p, e, m, r, f, l)
    ORDER BY p COLLATE "C", e COLLATE "C", m COLLATE "C", r COLLATE "C"
    ON CONFLICT (provider, endpoint, model, region) DO UPDATE SET last_seen = GREATEST(keys.last_seen, EXCLUDED.last_seen)
    RETURNING id, provider, endpoint, model, region`,
  services: `INSERT INTO services (name) SELECT * FROM UNNEST($1::text[]) AS s(n) ORDER BY n COLLATE "C"
    ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id, name`,
  source: `INSERT INTO sources (service_id, instance, sdk, first_seen, last_seen, dropped_events) VALUES ($1, $2, $3, $4, $4, $5)
    ON CONFLICT (service_id, instance) DO UPDATE SET last_seen = EXCLUDED.last_seen, sdk = coalesce(EXCLUDED.sdk, sources.sdk),
    dropped_events = sources.dropped_events + EXCLUDED.dropped_events RETURNING id`,
  keySelect: `SELECT k.id, k.provider, k.endpoint, k.model, k.region FROM keys k
    JOIN UNNEST($1::text[], $2::text[], $3::text[], $4::text[]) AS q(p, e, m, r)
    ON k.provider = q.p AND k.endpoint = q.e AND k.model = q.m AND k.region = q.r`,
  listKeys: `SELECT id, provider, endpoint, model, region, first_seen, last_seen FROM keys ORDER BY ${KEY_ORDER}`,
  sources: 'SELECT s.id, s.service_id, v.name AS service, s.instance, s.sdk, s.last_seen FROM sources s JOIN services v ON v.id = s.service_id',
  services_all: 'SELECT id, name FROM services',
  signal: numbered(SIGNAL_UPSERT),
  passthroughMinute: numbered(PASSTHROUGH_MINUTE_UPSERT),
  passthroughTotal: numbered(PASSTHROUGH_TOTAL_UPSERT),
  passthroughRange: numbered(PASSTHROUGH_RANGE),
};

/** `?` placeholders numbered `$n`, as PostgreSQL takes them. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** SQLSTATEs after which the whole transaction can simply run again: a deadlock, a serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

type KeyRow = { id: number; provider: string; endpoint: string; model: string; region: string };

/**
 * The PostgreSQL ingest path. Several collectors write through it at once, so nothing that
 * decides correctness lives in one process: a repeated `batch_id` is caught by the primary
 * key of `batches` (the first statement of the transaction; a concurrent twin waits for it
 * and then sees the conflict), and key, service and source ids come from upserts. Ids are
 * cached only once their transaction committed, for `findKeyId` and to skip the services upsert.
 */
export function createPostgresTelemetry(pool: PgPool): TelemetryPart {
  const keyIds = new Map<string, number>();
  const serviceIds = new Map<string, number>();
  // Bounded, oldest first out, as on SQLite: senders inventing keys cannot grow the cache without limit.
  const remember = (map: Map<string, number>, id: string, value: number) => {
    if (!map.has(id) && map.size >= KEY_CACHE_MAX) map.delete(map.keys().next().value!);
    map.set(id, value);
  };

  const write = async (c: PgClient, batches: readonly TelemetryBatch[], receivedAt: number) => {
    const fresh = new Set(
      (await c.query<{ batch_id: string }>({
        name: 'ingest_batches', text: SQL.batches,
        values: [batches.map((b) => b.batch_id), batches.map(() => receivedAt), batches.map((b) => b.events.length)],
      })).rows.map((r) => r.batch_id),
    );
    // A batch id twice in one call: the first is stored, the second is its duplicate.
    const stored = batches.map((b) => fresh.delete(b.batch_id));
    const learned = { keys: new Map<string, number>(), services: new Map<string, number>() };
    const acks: TelemetryAck[] = batches.map((b, i) => (stored[i] ? { accepted: b.events.length, duplicate: false } : { accepted: 0, duplicate: true }));
    const todo = batches.filter((_, i) => stored[i]);
    if (todo.length === 0) return { acks, learned };

    // Keys: first and latest time each was reported in this transaction.
    const keys = new Map<string, { key: BreakerKey; first: number; last: number }>();
    const seeKey = (key: BreakerKey, ts: number) => {
      const id = keyCacheId(key);
      const seen = keys.get(id);
      if (!seen) keys.set(id, { key, first: ts, last: ts });
      else if (ts > seen.last) seen.last = ts;
    };
    for (const b of todo) {
      for (const e of b.events) {
        if (e.type === 'window' || e.type === 'shadow') seeKey(e.key, e.end);
        else if (e.type === 'tasks') { if (e.key) seeKey(e.key, e.end); }
        else seeKey(e.key, e.ts);
      }
    }
    const keyId = new Map<string, number>();
    if (keys.size > 0) {
      const list = [...keys.values()];
      const rows = (await c.query<KeyRow>({
        name: 'ingest_keys', text: SQL.keys,
        values: [list.map((k) => k.key.provider), list.map((k) => k.key.endpoint), list.map((k) => k.key.model),
          list.map((k) => regionColumn(k.key)), list.map((k) => k.first), list.map((k) => k.last)],
      })).rows;
      for (const row of rows) keyId.set(keyCacheId(keyFromRow(row)), row.id);
    }

    const names = [...new Set(todo.map((b) => b.source.service))];
    const serviceId = new Map<string, number>();
    const unknown = names.filter((n) => {
      const id = serviceIds.get(n);
      if (id !== undefined) serviceId.set(n, id);
      return id === undefined;
    });
    if (unknown.length > 0) {
      for (const row of (await c.query<{ id: number; name: string }>({ name: 'ingest_services', text: SQL.services, values: [unknown] })).rows) {
        serviceId.set(row.name, row.id);
        learned.services.set(row.name, row.id);
      }
    }

    // Sources in one order across collectors (service id, instance), each batch's touch added in.
    const order = todo.map((b, i) => ({ b, i })).sort((x, y) => {
      const a = serviceId.get(x.b.source.service)!;
      const b = serviceId.get(y.b.source.service)!;
      return a !== b ? a - b : x.b.source.instance < y.b.source.instance ? -1 : x.b.source.instance > y.b.source.instance ? 1 : x.i - y.i;
    });
    const sourceOf = new Map<TelemetryBatch, number>();
    for (const { b } of order) {
      const row = (await c.query<{ id: number }>({
        name: 'ingest_source', text: SQL.source,
        values: [serviceId.get(b.source.service)!, b.source.instance, b.source.sdk ?? null, receivedAt, b.dropped_events ?? 0],
      })).rows[0]!;
      sourceOf.set(b, row.id);
    }

    const events = new EventColumns();
    const acc = new RollupAccumulator();
    const signals = new SignalAccumulator();
    const passthrough = new PassthroughAccumulator();
    // What other collectors' change feeds read of this transaction (docs/verdict-engine.md, "Several collectors").
    const changes = new ChangeLogRows();
    for (const b of todo) {
      const sourceId = sourceOf.get(b)!;
      const svc = serviceId.get(b.source.service)!;
      passthrough.add(svc, receivedAt, b.passthrough);
      for (const e of b.events) {
        changes.add(e.type === 'tasks' ? undefined : keyId.get(keyCacheId(e.key)), e);
        switch (e.type) {
          case 'window': {
            const k = keyId.get(keyCacheId(e.key))!;
            events.window(k, sourceId, e);
            acc.addWindow(k, svc, sourceId, e);
            signals.add(k, e);
            break;
          }
          case 'transition': {
            const k = keyId.get(keyCacheId(e.key))!;
            events.transition(k, sourceId, e);
            acc.addTransition(k, svc, sourceId, e);
            break;
          }
          case 'tasks':
            events.tasks(sourceId, e);
            acc.addTasks(svc, e, e.key ? keyId.get(keyCacheId(e.key)) : undefined);
            break;
          case 'config':
            events.config(keyId.get(keyCacheId(e.key))!, sourceId, e);
            break;
          case 'probe': {
            const k = keyId.get(keyCacheId(e.key))!;
            events.probe(k, sourceId, e);
            acc.addProbe(k, e);
            break;
          }
          case 'shadow':
            events.shadow(keyId.get(keyCacheId(e.key))!, sourceId, e);
            break;
        }
      }
    }
    await events.write(c);
    await writeRollups(c, acc);
    await changes.write(c);
    for (const row of signals.rows()) await c.query({ name: 'ingest_signal', text: SQL.signal, values: row });
    for (const row of passthrough.minuteRows()) await c.query({ name: 'ingest_passthrough_minute', text: SQL.passthroughMinute, values: row });
    for (const row of passthrough.totalRows()) await c.query({ name: 'ingest_passthrough_total', text: SQL.passthroughTotal, values: row });
    learned.keys = keyId;
    return { acks, learned };
  };

  const run = async (batches: readonly TelemetryBatch[], receivedAt: number): Promise<TelemetryAck[]> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const { acks, learned } = await inTransaction(pool, (c) => write(c, batches, receivedAt));
        // Committed: only now may other calls rely on these ids.
        for (const [k, v] of learned.keys) remember(keyIds, k, v);
        for (const [k, v] of learned.services) remember(serviceIds, k, v);
        return acks;
      } catch (err) {
        if (attempt >= ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  };

  const findKeyIds = async (list: readonly BreakerKey[]): Promise<(number | undefined)[]> => {
    const out = list.map((k) => keyIds.get(keyCacheId(k)));
    const missing = list.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out;
    const rows = (await pool.query<KeyRow>({
      name: 'find_keys', text: SQL.keySelect,
      values: [missing.map((k) => k.provider), missing.map((k) => k.endpoint), missing.map((k) => k.model), missing.map(regionColumn)],
    })).rows;
    const found = new Map(rows.map((r) => [keyCacheId(keyFromRow(r)), r.id]));
    for (const [k, v] of found) remember(keyIds, k, v);
    return list.map((k, i) => out[i] ?? found.get(keyCacheId(k)));
  };

  const listKeys = async (): Promise<KeyInfo[]> =>
    (await pool.query<KeyRow & { first_seen: number; last_seen: number }>({ name: 'list_keys', text: SQL.listKeys })).rows.map((row) => ({
      id: row.id, key: keyFromRow(row), firstSeen: row.first_seen, lastSeen: row.last_seen,
    }));

  return {
    async insertBatch(batch, receivedAt) {
      return (await run([batch], receivedAt))[0]!;
    },
    insertBatches: run,
    async findKeyId(key) {
      return (await findKeyIds([key]))[0];
    },
    findKeyIds,
    listKeys,
    async keys() {
      return new Map((await listKeys()).map((k) => [k.id, k]));
    },
    async sources() {
      const rows = (await pool.query<{ id: number; service_id: number; service: string; instance: string; sdk: string | null; last_seen: number }>(
        { name: 'list_sources', text: SQL.sources },
      )).rows;
      return new Map<number, SourceInfo>(rows.map((r) => [r.id, {
        id: r.id, serviceId: r.service_id, service: r.service, instance: r.instance, sdk: r.sdk, lastSeen: r.last_seen,
      }]));
    },
    async services() {
      const rows = (await pool.query<{ id: number; name: string }>({ name: 'list_services', text: SQL.services_all })).rows;
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    async providerSignals() {
      return signalsOf((await pool.query<SignalRow>({ name: 'list_signals', text: SIGNALS_ALL })).rows);
    },
    async passthrough(from, to) {
      return passthroughRowsOf((await pool.query({ name: 'list_passthrough', text: SQL.passthroughRange, values: [from, to] })).rows);
    },
  };
}

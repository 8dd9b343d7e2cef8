import { MINUTE_MS, keyId as keyCacheId, type BreakerKey, type TelemetryAck, type TelemetryBatch } from '@breakerbox/protocol';
import type { Db } from './database.ts';
import { RollupAccumulator, prepareRollupStatements } from '../rollups.ts';
import { histogramJson } from '../histogram.ts';
import { KEY_CACHE_MAX, keyFromRow, regionColumn } from '../key-rows.ts';
import { SampleGroups, samplesOf } from '../sample-rows.ts';
import { SHADOW_COLUMNS, shadowColumns } from '../shadow-rows.ts';
import { SIGNAL_UPSERT, SignalAccumulator } from '../signal-rows.ts';
import { PASSTHROUGH_MINUTE_UPSERT, PASSTHROUGH_TOTAL_UPSERT, PassthroughAccumulator } from '../passthrough-rows.ts';

/** A stored key with its id and the span it reported over. */
export interface StoredKey {
  id: number;
  key: BreakerKey;
  firstSeen: number;
  lastSeen: number;
}

/** Writes telemetry batches and reads back what arrived. */
export interface TelemetryStore {
  /** Stores a validated batch in one transaction; a known `batch_id` changes nothing. */
  insertBatch(batch: TelemetryBatch, receivedAt: number): TelemetryAck;
  /** Stores several validated batches in one transaction: all of them or none. */
  insertBatches(batches: TelemetryBatch[], receivedAt: number): TelemetryAck[];
  listKeys(): StoredKey[];
  /** The id of a key, or undefined if it never reported. */
  findKeyId(key: BreakerKey): number | undefined;
}

/**
 * Creates the telemetry store over the collector's single write connection. Key, service
 * and source ids are cached in memory (bounded); ids created inside a batch's transaction are dropped
 * from the cache if it rolls back, so a refused batch cannot leave a dangling id behind.
 */
export function createTelemetryStore(db: Db): TelemetryStore {
  const s = {
    batchSeen: db.prepare('SELECT 1 FROM batches WHERE batch_id = ?'),
    batchInsert: db.prepare('INSERT INTO batches (batch_id, received_at, events) VALUES (?, ?, ?)'),
    keySelect: db.prepare('SELECT id FROM keys WHERE provider = ? AND endpoint = ? AND model = ? AND region = ?'),
    keyInsert: db.prepare('INSERT INTO keys (provider, endpoint, model, region, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)'),
    keyTouch: db.prepare('UPDATE keys SET last_seen = max(last_seen, ?) WHERE id = ?'),
    serviceSelect: db.prepare('SELECT id FROM services WHERE name = ?'),
    serviceInsert: db.prepare('INSERT INTO services (name) VALUES (?)'),
    sourceSelect: db.prepare('SELECT id FROM sources WHERE service_id = ? AND instance = ?'),
    sourceInsert: db.prepare('INSERT INTO sources (service_id, instance, sdk, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)'),
    sourceTouch: db.prepare('UPDATE sources SET last_seen = ?, sdk = coalesce(?, sdk), dropped_events = dropped_events + ? WHERE id = ?'),
    window: db.prepare(`INSERT INTO window_events (key_id, source_id, start, end, calls, ok, slow, errors, rejected,
      short_circuited, retries, cold_excluded, half_open_ok, half_open_failed, latency, ttft, input_tokens, output_tokens, cost_usd)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    transition: db.prepare(`INSERT INTO transition_events (key_id, source_id, ts, from_state, to_state, reason, cooldown_ms, attempt, rate_error, rate_slow)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    tasks: db.prepare(`INSERT INTO task_events (source_id, operation, start, end, completed, failed, degraded, attempts, cost_usd, levels, fallback_invoked, fallback_failed)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    config: db.prepare('INSERT INTO config_events (key_id, source_id, ts, settings, fallbacks, warnings) VALUES (?, ?, ?, ?, ?, ?)'),
    probe: db.prepare(`INSERT INTO probe_events (key_id, source_id, location, ts, outcome, error_class, status, connect_ms, ttfb_ms, total_ms, cold, cost_usd, trigger,
      upstream_request_id, error_type, error_code, message, answer_excerpt, model_served, system_fingerprint)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    shadow: db.prepare(`INSERT INTO shadow_windows (${SHADOW_COLUMNS.join(', ')}) VALUES (${SHADOW_COLUMNS.map(() => '?').join(', ')})`),
    signal: db.prepare(SIGNAL_UPSERT),
    passthroughMinute: db.prepare(PASSTHROUGH_MINUTE_UPSERT),
    passthroughTotal: db.prepare(PASSTHROUGH_TOTAL_UPSERT),
    sampleCount: db.prepare('SELECT count(*) FROM call_samples WHERE key_id = ? AND ts >= ? AND ts < ?').pluck(),
    sample: db.prepare('INSERT INTO call_samples (key_id, source_id, ts, error_class, status, upstream_request_id, sample) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    listKeys: db.prepare('SELECT id, provider, endpoint, model, region, first_seen, last_seen FROM keys ORDER BY provider, endpoint, model, region'),
  };
  const rollups = prepareRollupStatements(db);

  const keyIds = new Map<string, number>();
  const serviceIds = new Map<string, number>();
  const sourceIds = new Map<string, number>();

  // Ids cached while a batch's transaction runs; forgotten again if it rolls back.
  let pending: [Map<string, number>, string][] = [];
  const remember = (map: Map<string, number>, id: string, value: number) => {
    // Bounded, oldest first out: senders inventing keys cannot grow the cache without limit.
    if (map.size >= KEY_CACHE_MAX) map.delete(map.keys().next().value!);
    map.set(id, value);
    pending.push([map, id]);
  };

  /**
   * Writes one batch's rows into the open transaction; its rollup increments go to `acc`,
   * shared by every batch of the transaction, so batches written together upsert each
   * (key, minute) row once.
   */
  const writeOne = (batch: TelemetryBatch, receivedAt: number, acc: RollupAccumulator, touched: Map<number, number>, samples: SampleGroups, signals: SignalAccumulator, passthrough: PassthroughAccumulator): TelemetryAck => {
    // A batch id written earlier in the same transaction counts as seen too.
    if (s.batchSeen.get(batch.batch_id)) return { accepted: 0, duplicate: true };

    let serviceId = serviceIds.get(batch.source.service);
    if (serviceId === undefined) {
      const row = s.serviceSelect.get(batch.source.service) as { id: number } | undefined;
      serviceId = row ? row.id : Number(s.serviceInsert.run(batch.source.service).lastInsertRowid);
      remember(serviceIds, batch.source.service, serviceId);
    }
    const sourceCacheId = `${serviceId}\u0000${batch.source.instance}`;
    let sourceId = sourceIds.get(sourceCacheId);
    if (sourceId === undefined) {
      const row = s.sourceSelect.get(serviceId, batch.source.instance) as { id: number } | undefined;
      sourceId = row
        ? row.id
        : Number(s.sourceInsert.run(serviceId, batch.source.instance, batch.source.sdk ?? null, receivedAt, receivedAt).lastInsertRowid);
      remember(sourceIds, sourceCacheId, sourceId);
    }
    s.sourceTouch.run(receivedAt, batch.source.sdk ?? null, batch.dropped_events ?? 0, sourceId);
    passthrough.add(serviceId, receivedAt, batch.passthrough);

    const keyId = (key: BreakerKey, ts: number): number => {
      const cacheId = keyCacheId(key);
      let id = keyIds.get(cacheId);
      if (id === undefined) {
        const region = regionColumn(key);
        const row = s.keySelect.get(key.provider, key.endpoint, key.model, region) as { id: number } | undefined;
        id = row ? row.id : Number(s.keyInsert.run(key.provider, key.endpoint, key.model, region, ts, ts).lastInsertRowid);
        remember(keyIds, cacheId, id);
      }
      if ((touched.get(id) ?? 0) < ts) touched.set(id, ts);
      return id;
    };

    for (const e of batch.events) {
      switch (e.type) {
        case 'window': {
          const k = keyId(e.key, e.end);
          s.window.run(k, sourceId, e.start, e.end, e.calls, e.ok, e.slow, JSON.stringify(e.errors), e.rejected,
            e.short_circuited, e.retries, e.cold_excluded, e.half_open.ok, e.half_open.failed,
            histogramJson(e.latency_ms), e.ttft_ms ? histogramJson(e.ttft_ms) : null,
            e.input_tokens, e.output_tokens, e.cost_usd);
          acc.addWindow(k, serviceId, sourceId, e);
          for (const sample of samplesOf(e)) samples.add(k, sourceId, sample);
          signals.add(k, e);
          break;
        }
        case 'transition': {
          const k = keyId(e.key, e.ts);
          s.transition.run(k, sourceId, e.ts, e.from, e.to, e.reason, e.cooldown_ms ?? null, e.attempt ?? null,
            e.rates?.error ?? null, e.rates?.slow ?? null);
          acc.addTransition(k, serviceId, sourceId, e);
          break;
        }
        case 'tasks':
          s.tasks.run(sourceId, e.operation, e.start, e.end, e.completed, e.failed, e.degraded, e.attempts, e.cost_usd,
            JSON.stringify(e.levels), e.fallback.invoked, e.fallback.failed);
          acc.addTasks(serviceId, e, e.key ? keyId(e.key, e.end) : undefined);
          break;
        case 'config':
          s.config.run(keyId(e.key, e.ts), sourceId, e.ts, JSON.stringify(e.settings), JSON.stringify(e.fallbacks), JSON.stringify(e.warnings));
          break;
        case 'probe': {
          const k = keyId(e.key, e.ts);
          s.probe.run(k, sourceId, e.location, e.ts, e.outcome, e.error_class ?? null, e.status ?? null,
            e.latency_ms.connect ?? null, e.latency_ms.ttfb ?? null, e.latency_ms.total, e.cold ? 1 : 0, e.cost_usd ?? null, e.trigger ?? null,
            e.upstream_request_id ?? null, e.error_type ?? null, e.error_code ?? null, e.message ?? null,
            e.answer_excerpt ?? null, e.model_served ?? null, e.system_fingerprint ?? null);
          acc.addProbe(k, e);
          break;
        }
        case 'shadow':
          s.shadow.run(...shadowColumns(keyId(e.key, e.end), sourceId, e));
          break;
      }
    }
    s.batchInsert.run(batch.batch_id, receivedAt, batch.events.length);
    return { accepted: batch.events.length, duplicate: false };
  };

  // One transaction for all the batches: all of them are stored or none.
  const writeAll = db.transaction((batches: readonly TelemetryBatch[], receivedAt: number): TelemetryAck[] => {
    const acc = new RollupAccumulator();
    const touched = new Map<number, number>();
    const samples = new SampleGroups();
    const signals = new SignalAccumulator();
    const passthrough = new PassthroughAccumulator();
    const acks = batches.map((batch) => writeOne(batch, receivedAt, acc, touched, samples, signals, passthrough));
    for (const row of signals.rows()) s.signal.run(...row);
    for (const row of passthrough.minuteRows()) s.passthroughMinute.run(...row);
    for (const row of passthrough.totalRows()) s.passthroughTotal.run(...row);
    // Bounded per key and minute (MAX_SAMPLES_PER_KEY_MINUTE): one count per group, then its rows.
    for (const g of samples.pending((keyId, minute) => s.sampleCount.get(keyId, minute, minute + MINUTE_MS) as number)) {
      for (const row of g.rows) s.sample.run(g.keyId, ...row);
    }
    for (const [id, ts] of touched) s.keyTouch.run(ts, id);
    acc.flush(rollups);
    return acks;
  });

  /** Runs a write; ids it cached are forgotten again if it rolls back. */
  const guarded = <T>(run: () => T): T => {
    pending = [];
    try {
      return run();
    } catch (err) {
      for (const [map, id] of pending) map.delete(id);
      throw err;
    } finally {
      pending = [];
    }
  };

  return {
    insertBatch(batch, receivedAt) {
      return guarded(() => writeAll.immediate([batch], receivedAt)[0]!);
    },
    insertBatches(batches, receivedAt) {
      return guarded(() => writeAll.immediate(batches, receivedAt));
    },
    listKeys() {
      return (s.listKeys.all() as { id: number; provider: string; endpoint: string; model: string; region: string; first_seen: number; last_seen: number }[]).map(
        (row) => ({ id: row.id, key: keyFromRow(row), firstSeen: row.first_seen, lastSeen: row.last_seen }),
      );
    },
    findKeyId(key) {
      // Ingest asks this for every distinct key of every batch (the key caps): the cache answers most.
      const cached = keyIds.get(keyCacheId(key));
      if (cached !== undefined) return cached;
      const row = s.keySelect.get(key.provider, key.endpoint, key.model, regionColumn(key)) as { id: number } | undefined;
      return row?.id;
    },
  };
}

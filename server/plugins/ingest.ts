import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { IncomingMessage } from 'node:http';
import { keyId, type TelemetryBatch } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import { parseJsonBody } from '../ingest/decode-body.ts';
import { createBodyBudget, readBody } from '../ingest/read-body.ts';
import { createRateLimiter } from '../ingest/rate-limiter.ts';
import { batchKeys, createKeyLimiter, storedKeys, type KeyLimiter } from '../ingest/key-limits.ts';
import { createLimitCounters, type LimitCounters, type LimitName } from '../ingest/limit-counters.ts';
import { validateBatch, type TimeBounds } from '../ingest/validate-batch.ts';
import { createGroupCommit } from '../ingest/group-commit.ts';
import { TelemetryRoute } from '../schemas/ingest.ts';
import { ingestDrillBatch } from '../drills/drill-ingest.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** How often each ingest limit refused a batch (read by `/metrics`). */
    ingestLimits: LimitCounters;
    /** The per-token and per-source key caps, shared by protocol v1 and OTLP ingest. */
    keyLimits: KeyLimiter;
    /**
     * The onRequest hooks of every ingest route (protocol v1 and OTLP): the `ingest` right,
     * the token's rate (one bucket per token shared by all of them), then the storage's
     * health, all before the body is read.
     */
    ingestGuard: onRequestHookHandler[];
    /** The span an ingested timestamp must fall in, as of `now`: raw retention back, allowed skew ahead. */
    ingestTimeBounds(now: number): TimeBounds;
    /**
     * Runs an ingest write: a storage fault (deleted or unwritable file, disk full) becomes a
     * 503 with `Retry-After` so the sender keeps its data, and is reported to the storage
     * health; a success clears it.
     */
    ingestWrite<T>(now: number, write: () => Promise<T>): Promise<T>;
  }
}

const DAY = 86_400_000;

const LIMIT_OF_CODE: Partial<Record<string, LimitName>> = {
  BB_ERR_INGEST_TOO_LARGE: 'body_limit_bytes',
  BB_ERR_INGEST_BUSY: 'inflight_body_bytes',
  BB_ERR_INGEST_INVALID: 'invalid',
  BB_ERR_INGEST_MALFORMED_JSON: 'invalid',
  BB_ERR_INGEST_BAD_ENCODING: 'invalid',
};

/**
 * `POST /v1/telemetry` — protocol v1. Auth, rate limit and the storage check run before
 * the body is read; the body streams in under a size cap and a shared in-flight budget, is
 * validated as a whole, its keys are checked against the per-token and per-source caps,
 * then it is written in one transaction (with the batches that arrived alongside it, see
 * `group-commit.ts`), so a batch is either stored entirely or not at all, and answered 200
 * only once that transaction has committed.
 */
async function ingestRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app;
  const limit = config.ingest.body_limit_bytes;
  const counters = app.ingestLimits;
  const budget = createBodyBudget(config.ingest.max_inflight_body_bytes);
  const count = (err: unknown) => {
    const name = LIMIT_OF_CODE[(err as BreakerboxError).code];
    if (name) counters.hit(name);
  };
  const groups = createGroupCommit(
    (batches, now) => {
      const events = batches.reduce((n, b) => n + b.events.length, 0);
      return app.ingestWrite(now, () =>
        app.tracing.span('db.insert_batch', { 'breakerbox.events': events, 'breakerbox.batches': batches.length }, () =>
          app.storage.telemetry.insertBatches(batches, now),
        ),
      );
    },
    { isFinal: (err) => (err as BreakerboxError).code === 'BB_ERR_STORE_UNAVAILABLE' },
  );
  // Keys of batches admitted but not yet committed: not new to a batch queued beside them.
  const queuedKeys = new Map<string, number>();
  const holdKeys = (keys: Iterable<string>, by: 1 | -1) => {
    for (const id of keys) {
      const n = (queuedKeys.get(id) ?? 0) + by;
      if (n > 0) queuedKeys.set(id, n);
      else queuedKeys.delete(id);
    }
  };

  // Scoped to this plugin: only JSON is accepted here (text/plain answers 415, not 400).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    try {
      const raw = await readBody(payload, {
        limit,
        contentEncoding: request.headers['content-encoding'],
        contentLength: request.headers['content-length'],
        budget,
      });
      return parseJsonBody(raw);
    } catch (err) {
      count(err);
      throw err;
    }
  });

  app.addHook('onResponse', async (_request, reply) => app.collectorMetrics.ingestRequest(reply.statusCode, reply.elapsedTime / 1000));
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/telemetry',
    {
      schema: TelemetryRoute,
      onRequest: app.ingestGuard,
    },
    async (request) => {
      const now = app.clock.now();
      let batch: TelemetryBatch;
      try {
        batch = validateBatch(request.body, app.ingestTimeBounds(now));
      } catch (err) {
        count(err);
        throw err;
      }
      if (batch.drill_id !== undefined) {
        // Drill traffic goes to the drill tables only: not the real rollups, key caps or ingest counters (docs/drills.md).
        if (!config.drills.enabled) throw new BreakerboxError('BB_ERR_INGEST_INVALID', 'failure drills are turned off on this collector (drills.enabled)', { path: '/drill_id' });
        const drill = batch as TelemetryBatch & { drill_id: string };
        return app.ingestWrite(now, () => ingestDrillBatch(app.storage.drills, drill, now));
      }
      const principal = request.principal!;
      const stored = await storedKeys([batch], (list) => app.storage.telemetry.findKeyIds(list));
      const keys = batchKeys(batch, (key) => queuedKeys.has(keyId(key)) || stored(key));
      const admission = app.keyLimits.admit({ id: principal.tokenId, name: principal.name }, [{ source: batch.source, keys }], now);
      // Counted as soon as queued, so batches queued together are held to the caps as if written one by one.
      admission.commit();
      holdKeys(keys.keys(), 1);
      let ack;
      try {
        ack = await groups.write(batch, now);
      } finally {
        holdKeys(keys.keys(), -1);
      }
      app.collectorMetrics.ingestBatch(batch.events, ack.duplicate);
      if (batch.fleet && !ack.duplicate) app.collectorMetrics.fleetReported(batch.fleet.applied, batch.fleet.ignored);
      if (batch.dropped_events && !ack.duplicate) {
        request.log.warn({ service: batch.source.service, instance: batch.source.instance, dropped: batch.dropped_events },
          'a sender dropped telemetry while the collector was unreachable');
      }
      return ack;
    },
  );
}

export const ingestPlugin = fp(
  async (app) => {
    const { config } = app;
    const counters = createLimitCounters();
    app.decorate('ingestLimits', counters);
    app.decorate('keyLimits', createKeyLimiter(config.ingest.keys, (name) => counters.hit(name)));
    const limiter = createRateLimiter({ perSecond: config.ingest.rate_limit.per_second, burst: config.ingest.rate_limit.burst });
    const admit: onRequestHookHandler = async (request) => {
      const waitMs = limiter.take(request.principal!.tokenId);
      if (waitMs > 0) {
        counters.hit('rate_limit');
        throw new BreakerboxError('BB_ERR_INGEST_RATE_LIMITED', undefined, {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
        });
      }
      // Refused before the body is read, so the sender keeps its batch and retries later.
      const retryS = await app.storage.health.admit(Date.now());
      if (retryS > 0) {
        counters.hit('storage_unavailable');
        throw new BreakerboxError('BB_ERR_STORE_UNAVAILABLE', undefined, { headers: { 'retry-after': String(retryS) } });
      }
    };
    app.decorate('ingestGuard', [app.requireRight('ingest'), admit]);
    app.decorate('ingestWrite', async <T>(now: number, write: () => Promise<T>): Promise<T> => {
      let result: T;
      try {
        result = await write();
      } catch (err) {
        if (!(await app.storage.health.writeFailed(err, now))) throw err;
        counters.hit('storage_unavailable');
        throw new BreakerboxError('BB_ERR_STORE_UNAVAILABLE', undefined, {
          cause: err,
          headers: { 'retry-after': String(config.storage.retry_after_s) },
        });
      }
      await app.storage.health.writeSucceeded();
      return result;
    });
    app.decorate('ingestTimeBounds', (now: number): TimeBounds => ({
      oldest: now - config.retention.raw_days * DAY,
      newest: now + config.ingest.max_future_ms,
    }));
    await app.register(ingestRoutes);
  },
  { name: 'ingest' },
);

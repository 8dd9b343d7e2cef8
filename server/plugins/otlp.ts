import { createHash, randomUUID } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keyId, type TelemetryBatch } from '@breakerbox/protocol';
import { BreakerboxError, type ErrorBody } from '../errors.ts';
import { inflateBody, parseJson } from '../ingest/decode-body.ts';
import { validateBatch } from '../ingest/validate-batch.ts';
import { batchKeys, storedKeys } from '../ingest/key-limits.ts';
import type { Rejections } from '../otlp/rejections.ts';
import { decodeLogsJson, decodeMetricsJson } from '../otlp/decode-json.ts';
import { decodeLogsProtobuf, decodeMetricsProtobuf } from '../otlp/decode-protobuf.ts';
import { decodeTracesJson, decodeTracesProtobuf } from '../otlp/decode-traces.ts';
import { SpanHold } from '../otlp/span-hold.ts';
import { SpanHandover } from '../otlp/span-handover.ts';
import { ModelCallParents } from '../otlp/model-call-parents.ts';
import { spansToTallies, tallyId, toWindow, type SpanTally } from '../otlp/spans-to-windows.ts';
import { logsToEvents } from '../otlp/logs-to-events.ts';
import { metricsToWindows } from '../otlp/metrics-to-windows.ts';
import { exportResponse, statusResponse, type Signal } from '../otlp/responses.ts';
import { CumulativeSeries } from '../otlp/series-state.ts';
import { WireError } from '../otlp/wire-reader.ts';
import { OtlpLogsRoute, OtlpMetricsRoute, OtlpTracesRoute } from '../schemas/ingest.ts';

/** Cumulative series one collector follows at most, and how long an idle one is kept. */
const MAX_SERIES = 50_000;
const SERIES_IDLE_MS = 30 * 60_000;
/** Protocol v1's events-per-batch ceiling: bigger resources are split, in one transaction still. */
const MAX_EVENTS = 5000;
/** Span tallies held at most (past it the oldest are stored early). */
const MAX_HELD_TALLIES = 50_000;

/** Span tallies as protocol v1 batches, one per source (service, instance, sdk). */
function talliesToBatches(tallies: Iterable<SpanTally>): TelemetryBatch[] {
  const bySource = new Map<string, TelemetryBatch>();
  for (const t of tallies) {
    const { source, window } = toWindow(t);
    const id = `${source.service}\u0000${source.instance}\u0000${source.sdk}`;
    let b = bySource.get(id);
    if (!b) bySource.set(id, (b = { batch_id: '', source, events: [] }));
    b.events.push(window);
  }
  return [...bySource.values()];
}

const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];
/** A request of these routes: the content-type parser below leaves the body as (inflated) bytes. */
type OtlpRequest = FastifyRequest<{ Body: Buffer }>;

const isProtobuf = (request: FastifyRequest) => PROTOBUF_TYPES.some((t) => (request.headers['content-type'] ?? '').toLowerCase().startsWith(t));

/** Decodes a body by its type; a protobuf body that is not the message answers 400. */
function decode<T>(request: OtlpRequest, protobuf: (b: Buffer) => T, json: (v: unknown) => T): T {
  const body = request.body;
  if (!isProtobuf(request)) return json(parseJson(body));
  try {
    return protobuf(body);
  } catch (err) {
    if (err instanceof WireError) throw new BreakerboxError('BB_ERR_INGEST_MALFORMED_PROTOBUF', `the body is not a valid OTLP protobuf message: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * `POST /v1/metrics`, `POST /v1/traces` and `POST /v1/logs` — OTLP/HTTP, protobuf or JSON, gzip or not, with
 * the ingest tokens, rate and size limits of `/v1/telemetry`. What a request maps to is
 * validated as protocol v1 batches, put under the same per-token and per-source key caps,
 * and written through the same store in one transaction; refused data points are counted in
 * OTLP's `partial_success`.
 */
async function otlpRoutes(app: FastifyInstance): Promise<void> {
  const limit = app.config.ingest.body_limit_bytes;
  const series = new CumulativeSeries({ maxSeries: MAX_SERIES, idleMs: SERIES_IDLE_MS, startedAt: Date.now() });
  const holdMs = app.config.ingest.otlp_traces_hold_ms;
  const spans = new SpanHold({ holdMs, maxTallies: MAX_HELD_TALLIES });
  const handover = new SpanHandover(MAX_SERIES);

  // Scoped to this plugin: only OTLP's two types are read, and the body stays bytes
  // (inflated under the cap) until the route decodes it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', ...PROTOBUF_TYPES], { parseAs: 'buffer', bodyLimit: limit }, (request, body, done) => {
    try {
      done(null, inflateBody(body as unknown as Buffer, request.headers['content-encoding'], limit));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // The shared error handler writes breakerbox's error body; OTLP wants a google.rpc.Status in the request's encoding.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let body: ErrorBody;
    try {
      body = JSON.parse(payload) as ErrorBody;
    } catch {
      return payload;
    }
    if (!body?.error) return payload;
    const protobuf = isProtobuf(request);
    reply.header('content-type', protobuf ? 'application/x-protobuf' : 'application/json; charset=utf-8');
    return statusResponse(reply.statusCode, body, protobuf);
  });

  /**
   * Puts a request's keys under the per-token and per-source caps of protocol v1: a 429 for
   * the per-minute rate (nothing stored, the exporter retries), else the events of the keys
   * over a cap a retry cannot clear are dropped and their points counted as refused.
   */
  const admitKeys = async (request: FastifyRequest, batches: TelemetryBatch[], pointsPerKey: Map<string, number>, rejected: Rejections, now: number) => {
    const principal = request.principal!;
    const isStored = await storedKeys(batches, (keys) => app.storage.telemetry.findKeyIds(keys));
    const admission = app.keyLimits.admit(
      { id: principal.tokenId, name: principal.name },
      batches.map((b) => ({ source: b.source, keys: batchKeys(b, isStored) })),
      now,
      { partial: true },
    );
    if (admission.refused.size === 0) return { batches, admission };
    for (const [id, { reason }] of admission.refused) rejected.add(reason, pointsPerKey.get(id) ?? 0);
    const kept = batches
      .map((b) => ({ ...b, events: b.events.filter((e) => e.type === 'tasks' || !admission.refused.has(keyId(e.key))) }))
      .filter((b) => b.events.length > 0);
    return { batches: kept, admission };
  };

  /** Validated chunks of at most MAX_EVENTS events, with ids derived from `idBase`. */
  const chunked = (batches: TelemetryBatch[], idBase: string, now: number): TelemetryBatch[] => {
    const bounds = app.ingestTimeBounds(now);
    const chunks: TelemetryBatch[] = [];
    batches.forEach((b, i) => {
      for (let j = 0; j < b.events.length; j += MAX_EVENTS) {
        const chunk = { ...b, batch_id: `${idBase}-${i}-${j / MAX_EVENTS}`, events: b.events.slice(j, j + MAX_EVENTS) };
        chunks.push(validateBatch(chunk, bounds));
      }
    });
    return chunks;
  };

  const write = async (signal: Signal, batches: TelemetryBatch[], now: number): Promise<void> => {
    if (batches.length === 0) return;
    const events = batches.reduce((n, c) => n + c.events.length, 0);
    await app.ingestWrite(now, () => app.tracing.span('db.insert_batch', { 'breakerbox.events': events, 'breakerbox.otlp': signal }, () => app.storage.telemetry.insertBatches(batches, now)));
  };

  /**
   * Validates and admits the batches of one request, ids derived from its bytes; `sink` stores
   * what was admitted (default: now, in one transaction). Returns the admitted batches.
   */
  const store = async (
    signal: Signal,
    request: OtlpRequest,
    mapped: { batches: TelemetryBatch[]; rejected: Rejections; pointsPerKey: Map<string, number> },
    now: number,
    sink: (admitted: TelemetryBatch[]) => Promise<void> | void = (admitted) => write(signal, admitted, now),
  ): Promise<TelemetryBatch[]> => {
    const digest = createHash('sha256').update(request.body).digest('hex');
    const chunks = chunked(mapped.batches, `otlp-${signal}-${digest}`, now);
    if (chunks.length === 0) return [];
    // Checked after validation, so a request refused as invalid takes no key slots; the chunks
    // keep the ids derived from the whole request, so a retried request is still a duplicate.
    const { batches: admitted, admission } = await admitKeys(request, chunks, mapped.pointsPerKey, mapped.rejected, now);
    await sink(admitted);
    admission.commit();
    return admitted;
  };

  const answer = (reply: FastifyReply, request: FastifyRequest, signal: Signal, rejected: number, message: string) => {
    const protobuf = isProtobuf(request);
    reply.type(protobuf ? 'application/x-protobuf' : 'application/json; charset=utf-8');
    return exportResponse(signal, protobuf, rejected, message);
  };

  // Not through the TypeBox provider: the body is bytes and the routes write OTLP's own
  // encodings (protobuf or JSON text) themselves, so the serialiser never sees a success reply.
  const route = { bodyLimit: limit, onRequest: app.ingestGuard };

  app.post<{ Body: Buffer }>('/v1/metrics', { ...route, schema: OtlpMetricsRoute }, async (request, reply) => {
    const now = Date.now();
    const resources = decode(request, decodeMetricsProtobuf, decodeMetricsJson);
    const deltas = series.stage();
    const mapped = metricsToWindows(resources, deltas, app.ingestTimeBounds(now));
    // Calls the same service's spans counted already are not counted again: only the remainder is stored.
    mapped.batches = mapped.batches
      .map((b): TelemetryBatch => ({
        ...b,
        events: b.events.flatMap((e): TelemetryBatch['events'] => {
          if (e.type !== 'window') return [e];
          const rest = handover.remainder(tallyId(b.source, e.key), e);
          return rest ? [rest] : [];
        }),
      }))
      .filter((b) => b.events.length > 0);
    await store('metrics', request, mapped, now);
    deltas.commit(); // only once stored: a request that failed leaves the series where they were
    return answer(reply, request, 'metrics', mapped.rejected.count, mapped.rejected.message());
  });

  /** Writes the held tallies that are due (all of them when the collector stops). */
  const release = async (all: boolean) => {
    const due = spans.take(app.clock.now(), all);
    if (due.length === 0) return;
    const now = app.clock.now();
    try {
      await write('traces', chunked(talliesToBatches(due), `otlp-traces-held-${randomUUID()}`, now), now);
    } catch (err) {
      app.log.warn({ err, tallies: due.length }, 'OTLP span tallies could not be stored and are lost');
    }
  };
  let releasing: Promise<void> = Promise.resolve();
  const timer = holdMs > 0 ? setInterval(() => (releasing = releasing.then(() => release(false))), Math.min(1000, holdMs)) : undefined;
  timer?.unref();
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await releasing;
    await release(true);
  });

  const parents = new ModelCallParents();
  app.post<{ Body: Buffer }>('/v1/traces', { ...route, schema: OtlpTracesRoute }, async (request, reply) => {
    const now = app.clock.now();
    const resources = decode(request, decodeTracesProtobuf, decodeTracesJson);
    const mapped = spansToTallies(resources, app.ingestTimeBounds(now), parents, handover);
    const batches = talliesToBatches(mapped.tallies.values());
    await store('traces', request, { batches, rejected: mapped.rejected, pointsPerKey: mapped.spansPerKey }, now, async (admitted) => {
      if (holdMs === 0) return write('traces', admitted, now);
      const kept = new Set<string>();
      for (const b of admitted) for (const e of b.events) if (e.type === 'window') kept.add(tallyId(b.source, e.key));
      spans.add([...mapped.tallies.values()].filter((t) => kept.has(tallyId(t.source, t.key))), now);
    });
    // Spans skipped by design (not model calls, or counted by metrics already) are not refused:
    // a partial success would be logged as a warning by the sender's exporter on every export.
    return answer(reply, request, 'traces', mapped.rejected.count, mapped.rejected.message());
  });

  app.post<{ Body: Buffer }>('/v1/logs', { ...route, schema: OtlpLogsRoute }, async (request, reply) => {
    const now = Date.now();
    const resources = decode(request, decodeLogsProtobuf, decodeLogsJson);
    const mapped = logsToEvents(resources, app.ingestTimeBounds(now), now);
    await store('logs', request, mapped, now);
    return answer(reply, request, 'logs', mapped.rejected.count, mapped.rejected.message());
  });
}

/** OTLP/HTTP receivers (docs/otlp.md); needs the ingest plugin's guard and time bounds. */
export const otlpPlugin = fp(
  async (app) => {
    await app.register(otlpRoutes);
  },
  { name: 'otlp', dependencies: ['ingest'] },
);

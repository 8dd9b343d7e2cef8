import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { BreakerboxError } from '../errors.ts';
import { decodeJsonBody } from '../ingest/decode-body.ts';
import { createRateLimiter } from '../ingest/rate-limiter.ts';
import { validateBatch } from '../ingest/validate-batch.ts';
import { AckSchema, BatchEnvelopeSchema, ErrorReplySchema } from '@breakerbox/protocol';

const DAY = 86_400_000;

/**
 * `POST /v1/telemetry` — protocol v1. Auth and rate limit run before the body is read;
 * the body is inflated under a cap, validated as a whole, then written in one transaction,
 * so a batch is either stored entirely or not at all.
 */
async function ingestRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app;
  const limit = config.ingest.body_limit_bytes;
  const limiter = createRateLimiter({ perSecond: config.ingest.rate_limit.per_second, burst: config.ingest.rate_limit.burst });

  // Scoped to this plugin: other routes keep fastify's plain JSON parser.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limit }, (request, body, done) => {
    try {
      done(null, decodeJsonBody(body as unknown as Buffer, request.headers['content-encoding'], limit));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  const requireIngest = app.requireRight('ingest');
  app.post(
    '/v1/telemetry',
    {
      bodyLimit: limit,
      schema: {
        description: 'Telemetry protocol v1 (validated per event type in the handler, so errors name the exact field).',
        response: { 200: AckSchema, '4xx': ErrorReplySchema },
      },
      onRequest: [
        requireIngest,
        async (request) => {
          const waitMs = limiter.take(request.principal!.tokenId);
          if (waitMs > 0) {
            throw new BreakerboxError('BB_ERR_INGEST_RATE_LIMITED', undefined, {
              headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
            });
          }
        },
      ],
    },
    async (request) => {
      const now = app.clock.now();
      const batch = validateBatch(request.body, {
        oldest: now - config.retention.raw_days * DAY,
        newest: now + config.ingest.max_future_ms,
      });
      const ack = app.tracing.span('db.insert_batch', { 'breakerbox.events': batch.events.length }, () =>
        app.telemetry.insertBatch(batch, now),
      );
      if (batch.dropped_events && !ack.duplicate) {
        request.log.warn({ service: batch.source.service, instance: batch.source.instance, dropped: batch.dropped_events },
          'a sender dropped telemetry while the collector was unreachable');
      }
      return ack;
    },
  );
}

/** The envelope schema, exported for documentation generators. */
export const telemetryBodySchema = BatchEnvelopeSchema;

export const ingestPlugin = fp(async (app) => {
  await app.register(ingestRoutes);
});

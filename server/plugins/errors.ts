import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { BreakerboxError, toErrorBody } from '../errors.ts';
import { validationFault } from './validation-path.ts';

/** Fastify's own error codes and the catalog entry each one answers as. */
const FASTIFY_CODES: Record<string, ConstructorParameters<typeof BreakerboxError>[0]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BB_ERR_INGEST_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'BB_ERR_INGEST_UNSUPPORTED_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BB_ERR_INGEST_INVALID',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BB_ERR_INGEST_MALFORMED_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BB_ERR_INGEST_MALFORMED_JSON',
};

/**
 * One error shape for every answer: `{"error": {"code", "message", "path"?}}`. Schema
 * validation errors name the field; 5xx causes go to the log and never to the client.
 */
export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler((raw: FastifyError | BreakerboxError, request, reply) => {
    let err: BreakerboxError;
    if (raw instanceof BreakerboxError) {
      err = raw;
    } else if ((raw as FastifyError).validation) {
      const fault = validationFault((raw as FastifyError).validationContext ?? 'request', (raw as FastifyError).validation);
      err = new BreakerboxError('BB_ERR_QUERY_INVALID', fault.message, { path: fault.path });
    } else if ((raw as FastifyError).code && FASTIFY_CODES[(raw as FastifyError).code]) {
      err = new BreakerboxError(FASTIFY_CODES[(raw as FastifyError).code]!, raw.message, { cause: raw });
    } else if ((raw as FastifyError).statusCode && (raw as FastifyError).statusCode! < 500) {
      err = new BreakerboxError('BB_ERR_QUERY_INVALID', raw.message, { cause: raw });
      reply.code((raw as FastifyError).statusCode!);
      return reply.send(toErrorBody(err));
    } else {
      err = new BreakerboxError('BB_ERR_INTERNAL', undefined, { cause: raw });
    }
    // A 503 is a known condition (storage fault, busy) logged once where it starts, not per request.
    if (err.statusCode >= 500 && err.statusCode !== 503) request.log.error({ err: err.cause ?? err, code: err.code }, 'request failed');
    else if (err.statusCode === 503) request.log.debug({ code: err.code }, err.message);
    else request.log.info({ code: err.code, path: err.path }, err.message);
    if (err.headers) reply.headers(err.headers);
    return reply.code(err.statusCode).send(toErrorBody(err));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(toErrorBody(new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`))),
  );
});

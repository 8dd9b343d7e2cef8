import fp from 'fastify-plugin';

/**
 * Every JSON answer (API, ingest acknowledgements, errors) and the `/metrics` text carries
 * `Cache-Control: no-store` — figures and verdicts must never be served from a cache — and
 * `X-Content-Type-Options: nosniff`. Dashboard pages and assets set their own policy.
 */
export const apiHeadersPlugin = fp(async (app) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json') || type.startsWith('text/plain')) {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
    }
    return payload;
  });
});

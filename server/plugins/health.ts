import fp from 'fastify-plugin';

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (the storage takes writes,
 * no storage fault, migrations applied). A red `/readyz` names its reason.
 */
export const healthPlugin = fp(async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const reason = await app.storage.health.notReadyReason(Date.now());
    if (reason === null) return { status: 'ready' };
    return reply.code(503).header('retry-after', String(app.config.storage.retry_after_s)).send({ status: 'not_ready', reason });
  });
});

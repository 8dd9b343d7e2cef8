import fp from 'fastify-plugin';

/** `GET /healthz` (the process answers) and `GET /readyz` (database writable, migrations applied). */
export const healthPlugin = fp(async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = app.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
});

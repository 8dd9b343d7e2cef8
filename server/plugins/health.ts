import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HealthRoute, ReadyRoute } from '../schemas/health.ts';

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (the storage takes writes,
 * no storage fault, migrations applied). A red `/readyz` names its reason.
 */
export const healthPlugin = fp(async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/healthz', { schema: HealthRoute }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', { schema: ReadyRoute }, async (_request, reply) => {
    const reason = await app.storage.health.notReadyReason(Date.now());
    if (reason === null) return { status: 'ready' as const };
    return reply.code(503).header('retry-after', String(app.config.storage.retry_after_s)).send({ status: 'not_ready', reason });
  });
});

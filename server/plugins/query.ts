import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { page, pageRequest } from '../query/pagination.ts';
import { KeysRoute } from '../schemas/keys.ts';

/**
 * Read API. `GET /api/keys`: every key known, with the span it reported over, its breaker
 * state across instances ("open on 2 of 5"), its verdict and headline numbers over the
 * window (docs/api.md), one page at a time (`limit`, `cursor`). Needs the verdicts plugin
 * registered before it.
 */
export const queryPlugin = fp(async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/keys', { onRequest: app.requireRight('read'), schema: KeysRoute }, async (request) => {
    const q = request.query;
    const at = pageRequest(q, { defaultLimit: app.config.api.default_limit, maxLimit: app.config.api.max_limit });
    const range = at.range ?? app.resolveWindow(q, '15m');
    const { items, next_cursor, total } = page(await app.fleetReads.keys(range), at, range);
    return { window: range, keys: items, next_cursor, total };
  });
});

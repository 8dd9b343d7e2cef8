import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import type { WindowQuery } from '../verdicts/window.ts';
import { PageParams, page, pageRequest } from '../query/pagination.ts';

const KeysQuery = Type.Object({
  window: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
  to: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
  ...PageParams,
});

/**
 * Read API. `GET /api/keys`: every key known, with the span it reported over, its breaker
 * state across instances ("open on 2 of 5"), its verdict and headline numbers over the
 * window (docs/api.md), one page at a time (`limit`, `cursor`). Needs the verdicts plugin
 * registered before it.
 */
export const queryPlugin = fp(async (app) => {
  app.get('/api/keys', { onRequest: app.requireRight('read'), schema: { querystring: KeysQuery } }, async (request) => {
    const q = request.query as WindowQuery & { limit?: string; cursor?: string };
    const at = pageRequest(q, { defaultLimit: app.config.api.default_limit, maxLimit: app.config.api.max_limit });
    const range = at.range ?? app.resolveWindow(q, '15m');
    const { items, next_cursor, total } = page(await app.fleetReads.keys(range), at, range);
    return { window: range, keys: items, next_cursor, total };
  });
});

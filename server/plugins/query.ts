import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import type { WindowQuery } from '../verdicts/window.ts';

const KeysQuery = Type.Object({
  window: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
  to: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
});

/**
 * Read API. `GET /api/keys`: every key known, with the span it reported over, its breaker
 * state across instances ("open on 2 of 5"), its verdict and headline numbers over the
 * window (docs/api.md). Needs the verdicts plugin registered before it.
 */
export const queryPlugin = fp(async (app) => {
  app.get('/api/keys', { onRequest: app.requireRight('read'), schema: { querystring: KeysQuery } }, async (request) => {
    const range = app.resolveWindow(request.query as WindowQuery, '15m');
    return { window: range, keys: app.verdicts.keys(range) };
  });
});

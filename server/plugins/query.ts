import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import { BreakerKeySchema } from '../ingest/schemas.ts';

const KeysReply = Type.Object({
  keys: Type.Array(
    Type.Object({
      key: BreakerKeySchema,
      first_seen: Type.Integer(),
      last_seen: Type.Integer(),
    }),
  ),
});

/**
 * Read API. `GET /api/keys`: every key seen, with the span it reported over — enough for
 * a client to check what arrived. The verdicts work extends this answer.
 */
export const queryPlugin = fp(async (app) => {
  app.get(
    '/api/keys',
    { onRequest: app.requireRight('read'), schema: { response: { 200: KeysReply } } },
    async () => ({
      keys: app.telemetry.listKeys().map((k) => ({ key: k.key, first_seen: k.firstSeen, last_seen: k.lastSeen })),
    }),
  );
});

import fp from 'fastify-plugin';
import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema, CallSampleSchema, ERROR_CLASSES } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import type { WindowQuery } from '../verdicts/window.ts';

const Millis = Type.String({ pattern: '^[0-9]{1,16}$' });

/** `GET /api/key/samples` query: the key (as `/api/key` takes it), the window, filters and a limit. */
export const SamplesQuery = Type.Object({
  window: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Millis),
  to: Type.Optional(Millis),
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  model: Type.String({ minLength: 1, maxLength: 300 }),
  region: Type.Optional(Type.String({ maxLength: 100 })),
  error_class: Type.Optional(Type.Union([...ERROR_CLASSES, 'slow'].map((c) => Type.Literal(c)))),
  service: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  instance: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});

/** One stored sample as the API returns it: who sent it, and the sample as sent. */
export const StoredSampleSchema = Type.Object({
  service: Type.String(),
  instance: Type.String(),
  sample: CallSampleSchema,
});

/** `GET /api/key/samples` reply. */
export const SamplesReply = Type.Object({
  window: Type.Object({ from: Type.Integer(), to: Type.Integer() }),
  key: BreakerKeySchema,
  samples: Type.Array(StoredSampleSchema),
});
export type SamplesReplyBody = Static<typeof SamplesReply>;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * Evidence samples of one key (docs/api.md): `GET /api/key/samples?provider=…&endpoint=…&model=…`,
 * newest first, filterable by class (`slow` for slow successes), service and instance.
 */
export const samplesPlugin = fp(
  async (app) => {
    app.get('/api/key/samples', { onRequest: app.requireRight('read'), schema: { querystring: SamplesQuery, response: { 200: SamplesReply } } }, async (request) => {
      const q = request.query as Static<typeof SamplesQuery>;
      const range = app.resolveWindow(q as WindowQuery, '1h');
      const key = { provider: q.provider, endpoint: q.endpoint, model: q.model, ...(q.region ? { region: q.region } : {}) };
      const keyId = await app.storage.telemetry.findKeyId(key);
      if (keyId === undefined) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no such key has reported');
      const limit = Math.min(MAX_LIMIT, q.limit === undefined ? DEFAULT_LIMIT : Math.max(1, Number(q.limit)));
      const rows = await app.storage.samples.forKey(keyId, {
        from: range.from, to: range.to + 1, limit,
        ...(q.error_class ? { errorClass: q.error_class } : {}),
        ...(q.service ? { service: q.service } : {}),
        ...(q.instance ? { instance: q.instance } : {}),
      });
      const reply: SamplesReplyBody = { window: range, key, samples: rows.map((r) => ({ service: r.service, instance: r.instance, sample: r.sample })) };
      return reply;
    });
  },
  { name: 'breakerbox-samples', dependencies: ['breakerbox-verdicts'] },
);

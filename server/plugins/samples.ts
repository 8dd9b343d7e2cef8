import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { SamplesRoute } from '../schemas/samples.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * Evidence samples of one key (docs/api.md): `GET /api/key/samples?provider=…&endpoint=…&model=…`,
 * newest first, filterable by class (`slow` for slow successes), service and instance.
 */
export const samplesPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/api/key/samples', { onRequest: app.requireRight('read'), schema: SamplesRoute }, async (request) => {
      const q = request.query;
      const range = app.resolveWindow(q, '1h');
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
      return { window: range, key, samples: rows.map((r) => ({ service: r.service, instance: r.instance, sample: r.sample })) };
    });
  },
  { name: 'breakerbox-samples', dependencies: ['breakerbox-verdicts'] },
);

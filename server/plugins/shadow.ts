import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { KEY_COLUMNS } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import { ShadowRoute } from '../schemas/shadow.ts';
import { comparePair } from '../shadow/compare.ts';
import { METHOD_STATEMENT } from '../shadow/significance.ts';

const CALLS = KEY_COLUMNS.indexOf('calls');
const COST = KEY_COLUMNS.indexOf('cost_usd');
const MINUTE = 60_000;

/**
 * Shadow traffic compared (docs/api.md, docs/lifecycle.md): `GET /api/shadow?window=…`, every
 * primary -> candidate pair mirrored in the window, or one primary key's
 * (`provider`, `endpoint`, `model`, `region`).
 */
export const shadowPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/api/shadow', { onRequest: app.requireRight('read'), schema: ShadowRoute }, async (request) => {
      const q = request.query;
      const range = app.resolveWindow(q, '24h');
      let keyId: number | undefined;
      if (q.provider || q.endpoint || q.model) {
        if (!q.provider || !q.endpoint || !q.model) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'provider, endpoint and model name one primary key together');
        keyId = await app.storage.telemetry.findKeyId({ provider: q.provider, endpoint: q.endpoint, model: q.model, ...(q.region ? { region: q.region } : {}) });
        if (keyId === undefined) return { window: range, method: METHOD_STATEMENT, pairs: [] };
      }
      const sums = await app.storage.shadow.pairs(range.from, range.to + 1, keyId);
      if (sums.length === 0) return { window: range, method: METHOD_STATEMENT, pairs: [] };
      const keys = await app.storage.telemetry.keys();
      const first = range.from - (range.from % MINUTE);
      const volumes = await app.storage.rollups.keyServiceSums(first, range.to + 1, keyId);
      const pairs = sums
        .filter((p) => keys.has(p.keyId))
        .map((p) => {
          let calls = 0;
          let cost = 0;
          for (const v of volumes.get(p.keyId)?.values() ?? []) {
            calls += v[CALLS]!;
            cost += v[COST]!;
          }
          return comparePair(p, keys.get(p.keyId)!.key, { calls, costUsd: cost }, range.to - range.from);
        })
        .sort((a, b) => b.pairs - a.pairs);
      return { window: range, method: METHOD_STATEMENT, pairs };
    });
  },
  { name: 'breakerbox-shadow', dependencies: ['breakerbox-verdicts'] },
);

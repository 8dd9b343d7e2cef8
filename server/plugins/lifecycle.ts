import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { lifecycleView } from '../lifecycle/lifecycle-view.ts';
import { LifecycleRoute } from '../schemas/lifecycle.ts';

/**
 * `GET /api/lifecycle` (docs/api.md, docs/lifecycle.md): the models in use with their
 * retirement dates, days left and successors, from the calendar built at start (`app.retirements`).
 */
export const lifecyclePlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const read = app.requireRight('read');
    const rule = app.config.alerts.rules.model_retiring;
    app.get('/api/lifecycle', { onRequest: read, schema: LifecycleRoute }, async (request) => {
      const days = request.query.days === undefined ? rule.traffic_days : Number(request.query.days);
      if (days < 1 || days > 90) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'days must be 1 to 90', { path: '/querystring/days' });
      return lifecycleView(app.storage, app.retirements, rule, app.clock.now(), days);
    });
  },
  { name: 'breakerbox-lifecycle', dependencies: ['breakerbox-storage'] },
);

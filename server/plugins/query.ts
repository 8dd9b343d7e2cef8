import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { page, pageRequest } from '../query/pagination.ts';
import { minuteOf } from '@breakerbox/protocol';
import { KeysRoute, type PassthroughEntry } from '../schemas/keys.ts';
import type { PassthroughRow } from '../storage/passthrough-rows.ts';

const passthroughEntry = (r: PassthroughRow): PassthroughEntry => ({
  service: r.service, host: r.host, path_family: r.pathFamily, method: r.method, requests: r.requests, why: r.why, last_seen: r.lastMinute,
});

/**
 * Read API. `GET /api/keys`: every key known, with the span it reported over, its breaker
 * state across instances ("open on 2 of 5"), its verdict and headline numbers over the
 * window (docs/api.md), one page at a time (`limit`, `cursor`), and beside them the requests
 * the SDKs forwarded unprotected in the window (`passthrough`). Needs the verdicts plugin
 * registered before it.
 */
export const queryPlugin = fp(async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/keys', { onRequest: app.requireRight('read'), schema: KeysRoute }, async (request) => {
    const q = request.query;
    const at = pageRequest(q, { defaultLimit: app.config.api.default_limit, maxLimit: app.config.api.max_limit });
    const range = at.range ?? app.resolveWindow(q, '15m');
    const [keys, passthrough] = await Promise.all([app.fleetReads.keys(range), app.storage.telemetry.passthrough(minuteOf(range.from), range.to)]);
    const { items, next_cursor, total } = page(keys, at, range);
    return { window: range, keys: items, passthrough: passthrough.map(passthroughEntry), next_cursor, total };
  });
});

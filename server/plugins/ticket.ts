import fp from 'fastify-plugin';
import { Type, type Static } from '@sinclair/typebox';
import { BreakerboxError } from '../errors.ts';
import type { WindowQuery } from '../verdicts/window.ts';
import { providerTicket, type TicketKey } from '../verdicts/provider-ticket.ts';

const Millis = Type.String({ pattern: '^[0-9]{1,16}$' });

/** `GET /api/incidents/:id/ticket` query: the window and whether to name our services. */
const TicketQuery = Type.Object({
  window: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Millis),
  to: Type.Optional(Millis),
  sources: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});

/** Samples read per key for a ticket. */
const SAMPLES_PER_KEY = 200;

/**
 * The provider ticket of an incident as plain text (docs/api.md): `GET /api/incidents/:id/ticket`.
 * Service and instance names are left out unless `sources=true`.
 */
export const ticketPlugin = fp(
  async (app) => {
    app.get('/api/incidents/:id/ticket', {
      onRequest: app.requireRight('read'),
      schema: { params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{16}$' }) }), querystring: TicketQuery, response: { 200: Type.String() } },
    }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const q = request.query as Static<typeof TicketQuery>;
      const range = app.resolveWindow(q as WindowQuery, '1h');
      const incident = (await app.verdicts.incidents(range)).find((i) => i.id === id);
      if (!incident) throw new BreakerboxError('BB_ERR_QUERY_NOT_FOUND', 'no such incident in this window');
      const ids = await app.storage.telemetry.findKeyIds(incident.keys.map((k) => k.key));
      const probes = await app.storage.events.probeEvents(range.from, range.to + 1);
      const keys: TicketKey[] = [];
      for (let i = 0; i < incident.keys.length; i++) {
        const keyId = ids[i];
        const k = incident.keys[i]!;
        if (keyId === undefined) continue;
        const samples = await app.storage.samples.forKey(keyId, { from: range.from, to: range.to + 1, limit: SAMPLES_PER_KEY });
        const byLocation = new Map<string, TicketKey['probes'][number]>();
        for (const p of probes) {
          if (p.keyId !== keyId || p.cold) continue;
          let l = byLocation.get(p.location);
          if (!l) byLocation.set(p.location, (l = { location: p.location, failed: 0, total: 0, firstFailed: null, lastFailed: null }));
          l.total++;
          if (p.outcome !== 'error') continue;
          l.failed++;
          l.firstFailed = l.firstFailed === null ? p.ts : Math.min(l.firstFailed, p.ts);
          l.lastFailed = l.lastFailed === null ? p.ts : Math.max(l.lastFailed, p.ts);
        }
        keys.push({ key: k.key, verdict: k.verdict, samples, probes: [...byLocation.values()] });
      }
      reply.type('text/plain; charset=utf-8');
      return providerTicket(keys, range, app.clock.now(), q.sources === 'true');
    });
  },
  { name: 'breakerbox-ticket', dependencies: ['breakerbox-verdicts'] },
);

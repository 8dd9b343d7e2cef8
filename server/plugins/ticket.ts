import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { TicketRoute } from '../schemas/samples.ts';
import { TICKET_PROBE_IDS, providerTicket, type TicketKey } from '../verdicts/provider-ticket.ts';

/** Samples read per key for a ticket. */
const SAMPLES_PER_KEY = 200;

/**
 * The provider ticket of an incident as plain text (docs/api.md): `GET /api/incidents/:id/ticket`.
 * Service and instance names are left out unless `sources=true`.
 */
export const ticketPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/api/incidents/:id/ticket', { onRequest: app.requireRight('read'), schema: TicketRoute }, async (request, reply) => {
      const { id } = request.params;
      const q = request.query;
      const range = app.resolveWindow(q, '1h');
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
          if (!l) byLocation.set(p.location, (l = { location: p.location, failed: 0, total: 0, firstFailed: null, lastFailed: null, requestIds: [] }));
          l.total++;
          if (p.outcome !== 'error') continue;
          l.failed++;
          l.firstFailed = l.firstFailed === null ? p.ts : Math.min(l.firstFailed, p.ts);
          l.lastFailed = l.lastFailed === null ? p.ts : Math.max(l.lastFailed, p.ts);
          // Rows come newest first per key and location: the first few ids are the latest.
          if (p.upstreamRequestId && l.requestIds.length < TICKET_PROBE_IDS) {
            l.requestIds.push({ ts: p.ts, id: p.upstreamRequestId, status: p.status, error: p.errorType ?? p.errorCode ?? p.errorClass });
          }
        }
        keys.push({ key: k.key, verdict: k.verdict, samples, probes: [...byLocation.values()] });
      }
      reply.type('text/plain; charset=utf-8');
      return providerTicket(keys, range, app.clock.now(), q.sources === 'true');
    });
  },
  { name: 'breakerbox-ticket', dependencies: ['breakerbox-verdicts'] },
);

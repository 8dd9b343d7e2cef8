import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ProbeRequestsRoute } from '../schemas/probes.ts';
import type { SuspicionsPart } from '../storage/storage.ts';
import { createSuspicionTrigger, type TriggerResult } from '../suspicion/trigger.ts';
import { leaderJob } from './leader-job.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Probe on suspicion: `evaluate(now)` runs one trigger pass (tests call it directly). */
    suspicion: {
      store: SuspicionsPart;
      evaluate(now?: number): Promise<TriggerResult>;
    };
  }
}

/** How often a waiting long-poll re-reads the queue (a burst's later requests fall due in between). */
const RECHECK_MS = 500;

/**
 * Probe on suspicion (docs/alerts.md): the trigger, run every `suspicion.interval_s`, and
 * `GET /v1/probe-requests?location=…` — a long-poll with an ingest token through which
 * probers learn of the immediate probes asked of them. Requests are stored (migration 030).
 */
export const suspicionPlugin = fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const cfg = app.config.suspicion;
    const store = app.storage.suspicions;
    const waiters = new Map<string, Set<() => void>>();
    let closing = false;
    const wake = (locations: string[]) => {
      for (const l of locations) for (const w of waiters.get(l) ?? []) w();
    };
    const trigger = createSuspicionTrigger(store, cfg, wake);
    const evaluate = async (now = app.clock.now()): Promise<TriggerResult> =>
      cfg.enabled ? trigger.evaluate(now) : { degrading: 0, opened: [] };
    app.decorate('suspicion', { store, evaluate });

    // Only the leader lease's holder opens suspicions, so a fleet asks each probe once.
    const job = leaderJob({
      intervalMs: cfg.interval_s * 1000,
      isLeader: () => app.storage.lease.isHeld(),
      run: async () => {
        const r = await evaluate();
        for (const s of r.opened) app.log.info({ key_id: s.keyId, reason: s.reason, locations: s.locations }, 'probe on suspicion: probes requested');
      },
      onError: (err) => app.log.error({ err }, 'suspicion trigger failed'),
    });
    if (cfg.enabled && cfg.interval_s > 0) app.addHook('onReady', async () => job.start());
    app.addHook('preClose', async () => {
      closing = true;
      for (const set of waiters.values()) for (const w of set) w();
    });
    app.addHook('onClose', async () => {
      await job.close();
    });

    const ingest = app.requireRight('ingest');
    app.get(
      '/v1/probe-requests',
      { onRequest: ingest, schema: ProbeRequestsRoute },
      async (request, reply) => {
        const q = request.query;
        const max = q.max ?? 20;
        const waitMs = Math.min(q.wait_s ?? cfg.long_poll_s, cfg.long_poll_s) * 1000;
        const deadline = performance.now() + waitMs;
        let aborted = false;
        // A prober that hung up is not waited for.
        reply.raw.once('close', () => {
          aborted = true;
        });
        for (;;) {
          const requests = cfg.enabled ? await store.take(q.location, app.clock.now(), max) : [];
          const left = deadline - performance.now();
          if (requests.length > 0 || left <= 0 || closing || aborted) {
            // With nothing asked, a prober that is not waiting (wait_s=0) is told to come back later.
            return { requests, retry_after_ms: requests.length > 0 || waitMs > 0 ? 0 : cfg.long_poll_s * 1000 };
          }
          await new Promise<void>((resolve) => {
            let set = waiters.get(q.location);
            if (!set) waiters.set(q.location, (set = new Set()));
            const done = () => {
              clearTimeout(t);
              set!.delete(done);
              if (set!.size === 0) waiters.delete(q.location);
              resolve();
            };
            const t = setTimeout(done, Math.min(left, RECHECK_MS));
            set.add(done);
          });
        }
      },
    );
  },
  { name: 'breakerbox-suspicion' },
);

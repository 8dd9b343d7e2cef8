import { Agent } from 'undici';
import type { FastifyBaseLogger } from 'fastify';
import { BreakerboxError } from '../errors.ts';
import { SEVERITY_RANK } from '../alerts/types.ts';
import type { NotificationsPart, NotifierTold } from '../storage/storage.ts';
import { sendWithRetry } from './http-send.ts';
import { PAGERDUTY_URL, PAYLOADS } from './payloads.ts';
import { redactUrl, scrub, secretsOf } from './redact.ts';
import type { ServerClock } from '../clock.ts';
import type { NotificationJob, NotifierConfig } from './types.ts';
import type { NotifierStatus } from '../schemas/alerts.ts';

/** The busy key of a job: its group, or its alert for one-alert deliveries. */
export const busyKeyOf = (job: NotificationJob): string => (job.group.perAlert ? `alert:${job.alert.id}` : job.group.key);

/**
 * What a finished delivery told its notifier, recorded with the delivery in one write: per
 * alert (an `update` is a `repeat` to a notifier that groups itself) or per group.
 */
export function toldOf(job: NotificationJob, notifier: string, ok: boolean): NotifierTold {
  return job.group.perAlert
    ? { scope: 'alert', alertId: job.alert.id, notifier, event: job.event === 'update' ? 'repeat' : job.event, ok, at: job.at }
    : { scope: 'group', groupKey: job.group.key, notifier, event: job.event, ok, at: job.at, digest: job.group.digest };
}

/** Deliveries of one notifier at once: enough to overlap, few enough to be polite. */
const CONCURRENCY = 2;

/** A notifier with its defaults resolved. */
export interface ResolvedNotifier {
  config: NotifierConfig;
  name: string;
  url: string;
  repeatMs: number;
  /** True when this notifier wants alerts of this rule and severity. */
  wants(rule: string, severity: keyof typeof SEVERITY_RANK): boolean;
}

/** Public status of a notifier: never its URL path, routing key or headers. */
export type { NotifierStatus } from '../schemas/alerts.ts';

/** Per-notifier queues: a slow or hanging receiver holds up only its own queue. */
export interface Dispatcher {
  notifiers: ResolvedNotifier[];
  /** True while a delivery of this group (or alert, `alert:<id>`) to this notifier is queued or in flight. */
  busy(target: string, notifier: string): boolean;
  /** Records the delivery as pending and queues it; resolves once it is recorded (the send runs in the background). */
  enqueue(notifier: ResolvedNotifier, job: NotificationJob): Promise<void>;
  status(): NotifierStatus[];
  /** Resolves once every queued and in-flight delivery has finished. */
  idle(): Promise<void>;
  /** Aborts in-flight deliveries, fails queued ones, and closes connections. */
  close(): Promise<void>;
  /** Finished deliveries since the process started, per notifier and status (a counter). */
  counts(): { notifier: string; status: 'ok' | 'failed'; count: number }[];
}

/** Options for the dispatcher. */
export interface DispatcherOptions {
  notifiers: NotifierConfig[];
  /** Where delivery records are written. */
  deliveries: Pick<NotificationsPart, 'startDelivery' | 'finishDelivery'>;
  externalUrl: string;
  defaultRepeatMs: number;
  log: FastifyBaseLogger;
  /** The clock deliveries are stamped with. */
  clock: ServerClock;
  /**
   * Whether this collector may send now (it holds the leader lease). A delivery whose turn
   * comes after the lease moved is not sent: the new leader fails it as abandoned and sends
   * it itself, so its notification state is left alone here. Default: always.
   */
  mayDeliver?(): boolean;
}

/** Checks notifier settings the schema cannot express; throws naming the notifier. */
export function resolveNotifiers(configs: NotifierConfig[], defaultRepeatMs: number): ResolvedNotifier[] {
  const names = new Set<string>();
  return configs.map((n, i) => {
    const where = `notifiers[${i}] (${n.name})`;
    if (names.has(n.name)) throw new BreakerboxError('BB_ERR_CONFIG_INVALID', `${where}: the name is used twice`);
    names.add(n.name);
    if (n.type !== 'pagerduty' && !n.url) throw new BreakerboxError('BB_ERR_CONFIG_INVALID', `${where}: url is required for a ${n.type} notifier`);
    if (n.type === 'pagerduty' && !n.routing_key) throw new BreakerboxError('BB_ERR_CONFIG_INVALID', `${where}: routing_key is required for pagerduty`);
    const repeatMs = (n.repeat_interval_s ?? (n.type === 'alertmanager' ? 60 : defaultRepeatMs / 1000)) * 1000;
    const rules = n.rules ? new Set(n.rules) : null;
    return {
      config: n,
      name: n.name,
      url: n.url ?? PAGERDUTY_URL,
      repeatMs,
      wants: (rule, severity) => (!rules || rules.has(rule)) && SEVERITY_RANK[severity] >= SEVERITY_RANK[n.min_severity],
    };
  });
}

/** Creates the dispatcher; deliveries run in the background and never block the caller. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const notifiers = resolveNotifiers(options.notifiers, options.defaultRepeatMs);
  const abort = new AbortController();
  const waiters: (() => void)[] = [];
  let pendingTotal = 0;
  let closed = false;
  const finished = new Map<string, { notifier: string; status: 'ok' | 'failed'; count: number }>();

  const lanes = new Map(
    notifiers.map((n) => [
      n.name,
      {
        notifier: n,
        agent: new Agent({ connect: { timeout: n.config.timeout_ms }, keepAliveTimeout: 4000 }),
        secrets: secretsOf(n.config, n.url),
        queue: [] as { job: NotificationJob; deliveryId: number }[],
        active: 0,
        busy: new Set<string>(),
        running: new Set<Promise<void>>(),
      },
    ]),
  );
  type Lane = NonNullable<ReturnType<typeof lanes.get>>;

  const settle = () => {
    pendingTotal--;
    if (pendingTotal === 0) waiters.splice(0).forEach((w) => w());
  };

  const finish = async (lane: Lane, item: { job: NotificationJob; deliveryId: number }, ok: boolean, attempts: number, httpStatus: number | null, error: string | null, record = true) => {
    const { job } = item;
    const clean = error === null ? null : scrub(error, lane.secrets);
    // A delivery left to the new leader was never attempted: not counted, its state not recorded.
    if (record) {
      const counter = `${lane.notifier.name}\u0000${ok ? 'ok' : 'failed'}`;
      const entry = finished.get(counter) ?? { notifier: lane.notifier.name, status: ok ? ('ok' as const) : ('failed' as const), count: 0 };
      entry.count++;
      finished.set(counter, entry);
    }
    try {
      const result = { status: ok ? ('ok' as const) : ('failed' as const), attempts, http_status: httpStatus, error: clean, finished_at: options.clock.now() };
      await options.deliveries.finishDelivery(item.deliveryId, result, record ? toldOf(job, lane.notifier.name, ok) : undefined);
    } catch (err) {
      options.log.error({ err, notifier: lane.notifier.name }, 'recording a delivery failed');
    }
    if (!ok) {
      options.log.warn({ notifier: lane.notifier.name, url: redactUrl(lane.notifier.url), fingerprint: job.alert.fingerprint, event: job.event, attempts, error: clean }, 'notification failed');
    }
    lane.busy.delete(busyKeyOf(job));
    settle();
  };

  const pump = (lane: Lane) => {
    while (lane.active < CONCURRENCY && lane.queue.length > 0 && !closed) {
      const item = lane.queue.shift()!;
      lane.active++;
      const n = lane.notifier;
      const run = (async () => {
        try {
          if (options.mayDeliver && !options.mayDeliver()) {
            await finish(lane, item, false, 0, null, 'not sent: another collector leads now and sends it', false);
            return;
          }
          const req = PAYLOADS[n.config.type](n.config, item.job, { externalUrl: options.externalUrl, sentAt: options.clock.now() });
          const r = await sendWithRetry(lane.agent, req, { timeoutMs: n.config.timeout_ms, retries: n.config.retries, backoffMs: n.config.backoff_ms }, abort.signal);
          await finish(lane, item, r.ok, r.attempts, r.httpStatus, r.error);
        } catch (err) {
          await finish(lane, item, false, 0, null, (err as Error).message);
        } finally {
          lane.active--;
        }
      })();
      lane.running.add(run);
      void run.finally(() => {
        lane.running.delete(run);
        pump(lane);
      });
    }
  };

  return {
    notifiers,
    busy: (target, notifier) => lanes.get(notifier)?.busy.has(target) ?? false,
    async enqueue(notifier, job) {
      const lane = lanes.get(notifier.name);
      if (!lane || closed) return;
      // Busy from now on, before the record is written, so the same target is never queued twice.
      pendingTotal++;
      lane.busy.add(busyKeyOf(job));
      let deliveryId: number;
      try {
        deliveryId = await options.deliveries.startDelivery({
          notifier: notifier.name, type: notifier.config.type, alert_id: job.alert.id, fingerprint: job.alert.fingerprint,
          rule: job.alert.rule, group_key: job.group.key, event: job.event, created_at: job.at,
        });
      } catch (err) {
        options.log.error({ err, notifier: notifier.name }, 'recording a delivery failed; it is not sent');
        lane.busy.delete(busyKeyOf(job));
        settle();
        return;
      }
      const item = { job, deliveryId };
      if (closed) return finish(lane, item, false, 0, null, 'aborted: the collector is shutting down');
      if (lane.queue.length >= notifier.config.max_queue) {
        return finish(lane, item, false, 0, null, `dropped: the queue of ${notifier.config.max_queue} is full`);
      }
      lane.queue.push(item);
      pump(lane);
    },
    status: () =>
      [...lanes.values()].map((l) => ({
        name: l.notifier.name, type: l.notifier.config.type, url: redactUrl(l.notifier.url), min_severity: l.notifier.config.min_severity,
        queued: l.queue.length, in_flight: l.active,
      })),
    counts: () => [...finished.values()].map((c) => ({ ...c })),
    idle: () => (pendingTotal === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    async close() {
      closed = true;
      abort.abort();
      await Promise.all(
        [...lanes.values()].flatMap((lane) => lane.queue.splice(0).map((item) => finish(lane, item, false, 0, null, 'aborted: the collector is shutting down'))),
      );
      await Promise.all([...lanes.values()].flatMap((l) => [...l.running]));
      await Promise.all([...lanes.values()].map((l) => l.agent.destroy().catch(() => undefined)));
    },
  };
}

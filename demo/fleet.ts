/**
 * The simulated fleet: two services × three instances, each instance its own SDK instance
 * (`createBreakerbox`, distinct `source.instance`) pushing telemetry to the collector, and
 * each running its operations with Poisson arrivals — what a small production fleet sends.
 */
import { createBreakerbox, type Breakerbox, type BreakerKey, type KeySettings, type ReporterStats } from '@breakerbox/sdk';
import { MODELS, SERVICES, TICKETS } from './catalog.ts';
import { buildTasks, type DemoTask } from './operations.ts';
import type { Providers } from './providers.ts';

/** Options of `startFleet`. */
export interface FleetOptions {
  providers: Providers;
  collectorUrl: string;
  ingestToken: string;
  /** Telemetry interval of every instance, ms. */
  reportIntervalMs: number;
  /** The `--fast` timeline: breaker cooldowns do not double (`FAST_BREAKER`), more shadow traffic (`shadowShare`). */
  fast?: boolean;
  /** Configuration warnings of the SDK (each distinct one once). */
  onWarning?: (message: string) => void;
  /** Telemetry push failures (each distinct message once per instance). */
  onTelemetryError?: (instance: string, message: string) => void;
}

/** Totals since the fleet started. */
export interface FleetTotals {
  tasks: number;
  failed: number;
  /** Tasks served by a fallback level (1–4). */
  failedOver: number;
  costUsd: number;
}

/** The running fleet. */
export interface Fleet {
  /** `service/instance` of every instance. */
  instances: string[];
  totals(): FleetTotals;
  /** Telemetry reporter health per instance (`service/instance`). */
  telemetry(): Record<string, ReporterStats | undefined>;
  /** Ships the migration: pinned operations call their successor from now on (`OperationSpec.pinned`). */
  migrate(): void;
  /** Stops the traffic, waits briefly for calls in flight, and flushes telemetry. */
  stop(): Promise<void>;
}

/** Breaker, retry and timing settings of the demo: short windows so phases trip in seconds. */
const DEFAULTS: KeySettings = {
  breaker: {
    windowMs: 10_000,
    buckets: 10,
    minCalls: 5,
    errorThreshold: 0.5,
    slowThreshold: 0.5,
    cooldownMs: 10_000,
    cooldownMultiplier: 2,
    maxCooldownMs: 40_000,
    halfOpenSuccesses: 2,
    stableResetMs: 60_000,
  },
  retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 },
  bulkhead: { maxConcurrent: 32 },
};

/**
 * `--fast`: the cooldown stays at 10 s instead of doubling to 40 s. A breaker still open when a
 * phase's fault ends closes within 10 s of it, so the phase's open_share alert (60 s window)
 * resolves about a minute after the phase rather than a minute and a half: the tail of a
 * `--once` run, which ends when the last alert has resolved.
 */
const FAST_BREAKER: KeySettings['breaker'] = { ...DEFAULTS.breaker, cooldownMultiplier: 1, maxCooldownMs: 10_000 };

function keySettings(key: BreakerKey): KeySettings | undefined {
  const spec = MODELS[key.model];
  if (!spec) return undefined;
  const cooldown = spec.cooldownMs === undefined ? {} : { cooldownMs: spec.cooldownMs, cooldownMultiplier: 1, maxCooldownMs: spec.cooldownMs };
  return { breaker: { latencyCeilingMs: spec.ceilingMs, ...cooldown } };
}

/** Calls of one operation in flight per instance at most; beyond it an arrival is skipped. */
const MAX_IN_FLIGHT = 24;

/** Exponential inter-arrival time for `ratePerS`, ms. */
const nextArrivalMs = (ratePerS: number) => (-Math.log(1 - Math.random()) / ratePerS) * 1000;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Starts every instance and its traffic. */
export function startFleet(options: FleetOptions): Fleet {
  const totals: FleetTotals = { tasks: 0, failed: 0, failedOver: 0, costUsd: 0 };
  const sdks: Breakerbox[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const names: string[] = [];
  const warned = new Set<string>();
  let stopped = false;
  let migrated = false;

  const drive = (task: DemoTask, ratePerS: number) => {
    let running = 0;
    const schedule = () => {
      if (stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        schedule();
        if (running >= MAX_IN_FLIGHT) return;
        running++;
        const p = task
          .run(pick(TICKETS))
          // A failed task is part of the story (the SDK has reported it); nothing to do here.
          .catch(() => undefined)
          .finally(() => {
            running--;
            inFlight.delete(p);
          });
        inFlight.add(p);
      }, nextArrivalMs(ratePerS));
      timers.add(timer);
    };
    schedule();
  };

  for (const service of SERVICES) {
    for (let i = 1; i <= service.instances; i++) {
      const instance = `${service.name}-${i}`;
      const bb = createBreakerbox({
        defaults: options.fast ? { ...DEFAULTS, breaker: FAST_BREAKER } : DEFAULTS,
        keySettings,
        prices: Object.fromEntries(Object.values(MODELS).map((m) => [m.model, m.price])),
        telemetry: {
          url: options.collectorUrl,
          token: options.ingestToken,
          service: service.name,
          instance,
          intervalMs: options.reportIntervalMs,
        },
        // The timeline shows each instance's own breakers (flapping, slow calls); with the fleet
        // feed a probe-confirmed outage holds them open fleet-wide instead (docs/fleet.md), and
        // the flapping phase would not flap. The feed is measured by `npm run bench -- fleet`.
        fleet: false,
      });
      bb.onWarning((message) => {
        if (warned.has(message)) return;
        warned.add(message);
        options.onWarning?.(message);
      });
      const failures = new Set<string>();
      bb.onTelemetryError((e) => {
        if (failures.has(e.message)) return;
        failures.add(e.message);
        options.onTelemetryError?.(instance, e.message);
      });
      bb.onCall((e) => {
        // Only whole tasks (a chain's call); a chain's inner attempts are not emitted separately.
        if (e.operation === undefined) return;
        totals.tasks++;
        if (!e.ok) totals.failed++;
        else if (e.level > 0) totals.failedOver++;
        totals.costUsd += e.costUsd;
      });
      sdks.push(bb);
      names.push(`${service.name}/${instance}`);
      const tasks = buildTasks(bb, service, options.providers, () => migrated, options.fast);
      service.operations.forEach((op, j) => drive(tasks[j]!, op.ratePerS));
    }
  }

  return {
    instances: names,
    totals: () => ({ ...totals }),
    telemetry: () => Object.fromEntries(sdks.map((bb, i) => [names[i]!, bb.telemetryStats()])),
    migrate: () => {
      migrated = true;
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const settled = Promise.allSettled([...inFlight]);
      await Promise.race([settled, new Promise((r) => setTimeout(r, 3_000).unref())]);
      await Promise.all(sdks.map((bb) => bb.close(2_000)));
    },
  };
}

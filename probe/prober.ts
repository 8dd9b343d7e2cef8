/**
 * The prober: fires each target on its schedule, never two probes of one target at
 * once (an overlap is skipped and counted), at most `max_concurrent` across targets,
 * pauses on the daily cost cap, sends an optional warm-up after an idle period, and
 * hands one protocol-v1 `probe` event per probe to its sink.
 */
import type { BreakerKey, ErrorClass, ProbeEvent } from '@breakerbox/protocol';
import { adapterFor } from './adapters/index.ts';
import type { Usage } from './adapters/types.ts';
import type { ProberConfig, TargetConfig } from './config-types.ts';
import { DailyCostCap } from './cost-cap.ts';
import { PROBE_ERROR_CODES, ProbeError } from './errors.ts';
import { answerEvidence, failureEvidence } from './failure-evidence.ts';
import type { AwsCredentials } from './aws-credentials.ts';
import { runExchange, type ExchangeInput, type ExchangeResult } from './exchange.ts';
import type { Logger } from './logger.ts';
import { CronScheduler, type Scheduler } from './scheduler.ts';
import { Slots } from './slots.ts';

/** Classes that say the probe itself is wrong (key, scope, model name, request), not the provider. */
export const MISCONFIGURED_CLASSES: ReadonlySet<ErrorClass> = new Set<ErrorClass>(['auth', 'bad_request', 'context_length']);

/** What happened to one firing of a target. */
export type FireResult =
  | { kind: 'probed'; event: ProbeEvent; warmup: ProbeEvent | undefined; startedAt: number }
  | { kind: 'skipped'; reason: 'overlap' | 'cost_cap' | 'stopped' | 'on_demand_budget' };

/** Why a probe runs: its schedule, or the collector asked (probe on suspicion). */
export type ProbeTrigger = 'schedule' | 'suspicion';

/** Observes each probe as it starts (benchmarks measure lateness with it). */
export type StartHook = (target: TargetConfig, scheduledAt: number, startedAt: number) => void;

/** Options of `Prober`; defaults are resolved once in the constructor. */
export interface ProberOptions {
  config: ProberConfig;
  /** API keys by environment variable name, as read by the CLI. */
  apiKeys: ReadonlyMap<string, string>;
  /** AWS credentials for SigV4-signed kinds (`bedrock-converse`), as found by the CLI. */
  aws?: AwsCredentials | undefined;
  /** Receives every probe event (normally `PushClient.push`). */
  sink: (event: ProbeEvent) => void;
  logger: Logger;
  now?: () => number;
  scheduler?: Scheduler;
  onStart?: StartHook;
  /** Replaces the network exchange (tests of scheduling logic only). */
  exchange?: (input: ExchangeInput) => Promise<ExchangeResult>;
}

/** Counters of the prober's own behaviour. */
export interface ProberStats {
  fired: number;
  probes: number;
  warmups: number;
  skippedOverlap: number;
  skippedCostCap: number;
  ok: number;
  slow: number;
  error: number;
  /** Answers that arrived well-formed and missed their canary (issue 39). */
  wrong_answer: number;
  misconfigured: number;
  /** Probes run because the collector asked (probe on suspicion). */
  onDemand: number;
  /** Requests refused: the location's on-demand budget for the hour was spent. */
  skippedOnDemandBudget: number;
  /** Requests for a key this location does not probe. */
  unknownRequests: number;
}

const HOUR_MS = 3_600_000;

interface TargetState {
  busy: boolean;
  lastProbeAt: number | undefined;
  /** The probe running now, if any. */
  current: Promise<FireResult> | undefined;
  /** The last on-demand probe queued for this target: a burst runs one after another. */
  onDemandTail: Promise<unknown>;
}

/** Runs the probes of one config. */
export class Prober {
  readonly stats: ProberStats = {
    fired: 0, probes: 0, warmups: 0, skippedOverlap: 0, skippedCostCap: 0, ok: 0, slow: 0, error: 0, wrong_answer: 0, misconfigured: 0,
    onDemand: 0, skippedOnDemandBudget: 0, unknownRequests: 0,
  };
  /** Start times of the on-demand probes of the last hour (the per-location bound). */
  private readonly onDemandTimes: number[] = [];
  readonly costCap: DailyCostCap;
  private readonly config: ProberConfig;
  private readonly apiKeys: ReadonlyMap<string, string>;
  private readonly aws: AwsCredentials | undefined;
  private readonly sink: (event: ProbeEvent) => void;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly scheduler: Scheduler;
  private readonly onStart: StartHook | undefined;
  private readonly exchange: (input: ExchangeInput) => Promise<ExchangeResult>;
  private readonly slots: Slots;
  private readonly states = new Map<string, TargetState>();
  private readonly targets = new Map<string, TargetConfig>();
  private readonly inFlight = new Set<Promise<FireResult>>();
  private stopping = false;

  constructor(opts: ProberOptions) {
    this.config = opts.config;
    this.apiKeys = opts.apiKeys;
    this.aws = opts.aws;
    this.sink = opts.sink;
    this.log = opts.logger;
    this.now = opts.now ?? Date.now;
    this.onStart = opts.onStart;
    this.exchange = opts.exchange ?? runExchange;
    this.scheduler = opts.scheduler ?? new CronScheduler({ timezone: opts.config.timezone, logger: opts.logger, now: this.now });
    this.slots = new Slots(opts.config.maxConcurrent);
    this.costCap = new DailyCostCap(opts.config.dailyCostCapUsd, this.now, opts.logger);
    const missing: string[] = [];
    for (const t of opts.config.targets) {
      if (t.apiKeyEnv && !this.apiKeys.has(t.apiKeyEnv)) missing.push(`target "${t.name}" (targets[${t.index}]): api_key_env: environment variable ${t.apiKeyEnv} is not set`);
      this.targets.set(t.name, t);
      this.states.set(t.name, { busy: false, lastProbeAt: undefined, current: undefined, onDemandTail: Promise.resolve() });
    }
    if (missing.length > 0) throw new ProbeError(PROBE_ERROR_CODES.ENV, `${missing.length} API key(s) missing from the environment`, missing);
  }

  /** Probes currently running or waiting for a concurrency slot. */
  get active(): number {
    return this.inFlight.size;
  }

  /** Schedules every target. */
  start(): void {
    for (const t of this.config.targets) {
      this.scheduler.add(t, (at) => {
        // A bug in one probe must not take the process (and every other target) down.
        this.fire(t.name, at).catch((err: unknown) =>
          this.log.error('probe failed unexpectedly', { target: t.name, error: err instanceof Error ? err.message : String(err) }),
        );
      });
    }
    this.log.info('prober started', {
      location: this.config.location,
      targets: this.config.targets.length,
      max_concurrent: this.config.maxConcurrent,
      daily_cost_cap_usd: this.config.dailyCostCapUsd ?? null,
    });
  }

  /** Stops scheduling and waits for the probes in flight to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.scheduler.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Runs the targets probing `key` now because the collector asked (probe on suspicion):
   * marked `trigger: 'suspicion'`, counted in the daily cost cap like any probe, and at most
   * `on_demand.max_per_hour` per hour for this location. A request for a target whose probe
   * is running waits for it (requests of one poll, a burst, a scheduled probe) instead of
   * being skipped as an overlap.
   */
  fireOnDemand(key: BreakerKey): Promise<FireResult[]> {
    const same = (a: BreakerKey) => a.provider === key.provider && a.endpoint === key.endpoint && a.model === key.model && (a.region ?? '') === (key.region ?? '');
    const targets = this.config.targets.filter((t) => same(t.key));
    if (targets.length === 0) {
      this.stats.unknownRequests++;
      this.log.warn('the collector asked for a probe of a key this location does not probe', { key });
      return Promise.resolve([]);
    }
    const now = this.now();
    while (this.onDemandTimes.length > 0 && now - this.onDemandTimes[0]! >= HOUR_MS) this.onDemandTimes.shift();
    return Promise.all(
      targets.map((t) => {
        if (!this.config.onDemand.enabled || this.onDemandTimes.length >= this.config.onDemand.maxPerHour) {
          this.stats.skippedOnDemandBudget++;
          this.log.warn('probe request refused: the on-demand budget of this location is spent for the hour', { target: t.name, max_per_hour: this.config.onDemand.maxPerHour });
          return { kind: 'skipped', reason: 'on_demand_budget' } as const;
        }
        this.onDemandTimes.push(now);
        const state = this.states.get(t.name)!;
        const queued = state.onDemandTail.then(() => this.whenIdle(state)).then(() => this.fire(t.name, this.now(), 'suspicion'));
        state.onDemandTail = queued.catch(() => undefined);
        return queued;
      }),
    );
  }

  private async whenIdle(state: TargetState): Promise<void> {
    while (state.current && !this.stopping) await state.current.catch(() => undefined);
  }

  /** Fires one target now (the scheduler calls this; tests may too). */
  fire(name: string, scheduledAt: number = this.now(), trigger: ProbeTrigger = 'schedule'): Promise<FireResult> {
    const target = this.targets.get(name);
    const state = this.states.get(name);
    if (!target || !state) return Promise.reject(new ProbeError(PROBE_ERROR_CODES.INVALID_OPTIONS, `no target named "${name}"`));
    this.stats.fired++;
    if (this.stopping) return Promise.resolve({ kind: 'skipped', reason: 'stopped' });
    if (state.busy) {
      this.stats.skippedOverlap++;
      this.log.warn('probe skipped: the previous probe of this target is still running', { target: name, skipped_total: this.stats.skippedOverlap });
      return Promise.resolve({ kind: 'skipped', reason: 'overlap' });
    }
    if (this.costCap.paused()) {
      this.stats.skippedCostCap++;
      return Promise.resolve({ kind: 'skipped', reason: 'cost_cap' });
    }
    state.busy = true;
    const run = this.run(target, state, scheduledAt, trigger).finally(() => {
      state.busy = false;
      state.current = undefined;
      this.inFlight.delete(run);
    });
    state.current = run;
    this.inFlight.add(run);
    return run;
  }

  private async run(target: TargetConfig, state: TargetState, scheduledAt: number, trigger: ProbeTrigger): Promise<FireResult> {
    await this.slots.acquire();
    try {
      // The cap may have been reached while this probe waited for a slot.
      if (this.costCap.paused()) {
        this.stats.skippedCostCap++;
        return { kind: 'skipped', reason: 'cost_cap' };
      }
      const startedAt = this.now();
      this.onStart?.(target, scheduledAt, startedAt);
      let warmup: ProbeEvent | undefined;
      const idleSince = state.lastProbeAt;
      if (target.warmupAfterIdleMs !== undefined && (idleSince === undefined || startedAt - idleSince >= target.warmupAfterIdleMs)) {
        warmup = await this.probeOnce(target, true);
        this.stats.warmups++;
      }
      const event = await this.probeOnce(target, false, trigger);
      state.lastProbeAt = this.now();
      return { kind: 'probed', event, warmup, startedAt };
    } finally {
      this.slots.release();
    }
  }

  private async probeOnce(target: TargetConfig, cold: boolean, trigger: ProbeTrigger = 'schedule'): Promise<ProbeEvent> {
    const adapter = adapterFor(target.kind);
    if (!adapter) throw new ProbeError(PROBE_ERROR_CODES.INVALID_OPTIONS, `unknown kind ${target.kind}`);
    const ts = this.now();
    const apiKey = target.apiKeyEnv ? this.apiKeys.get(target.apiKeyEnv) : undefined;
    const result = await this.exchange({
      adapter,
      request: target.request,
      baseUrl: target.baseUrl,
      apiKey,
      aws: this.aws,
      timeouts: target.timeouts,
      canary: target.canary,
    });
    const cost = costOf(result.usage, target);
    if (cost !== undefined) this.costCap.record(cost);
    const event = toEvent(target, ts, result, cold, cost, apiKey);
    if (trigger === 'suspicion' && !cold) event.trigger = 'suspicion';
    if (!cold) {
      this.stats.probes++;
      if (trigger === 'suspicion') this.stats.onDemand++;
      this.stats[event.outcome]++;
    }
    this.report(target, event, result);
    this.sink(event);
    return event;
  }

  private report(target: TargetConfig, event: ProbeEvent, result: ExchangeResult): void {
    const fields = {
      target: target.name,
      location: event.location,
      outcome: event.outcome,
      ...(event.error_class ? { error_class: event.error_class } : {}),
      ...(event.status !== undefined ? { status: event.status } : {}),
      latency_ms: event.latency_ms,
      ...(event.cold ? { cold: true } : {}),
    };
    if (event.error_class && MISCONFIGURED_CLASSES.has(event.error_class)) {
      this.stats.misconfigured++;
      this.log.error(
        `MISCONFIGURED PROBE "${target.name}": ${event.error_class} — this is our configuration (key, scope, model, request), not a provider failure`,
        { ...fields, reason: result.reason, api_key_env: target.apiKeyEnv ?? null, base_url: target.baseUrl.origin },
      );
    } else if (event.outcome === 'error') {
      this.log.warn(`probe failed: ${result.reason}`, fields);
    } else if (event.outcome === 'wrong_answer') {
      this.log.warn(`probe answered wrongly: ${event.message ?? 'the canary missed'}`, { ...fields, answer_excerpt: event.answer_excerpt ?? '' });
    } else if (event.outcome === 'slow') {
      this.log.info(`probe slow: over the ${target.latencyCeilingMs} ms ceiling`, fields);
    } else {
      this.log.debug('probe ok', fields);
    }
  }
}

function costOf(usage: Usage | undefined, target: TargetConfig): number | undefined {
  if (!usage || !target.price) return undefined;
  return (usage.inputTokens * target.price.inputPerMtok + usage.outputTokens * target.price.outputPerMtok) / 1e6;
}

function toEvent(target: TargetConfig, ts: number, r: ExchangeResult, cold: boolean, cost: number | undefined, apiKey: string | undefined): ProbeEvent {
  // A wrong answer is wrong however fast it came: the canary outranks the latency ceiling.
  const outcome: ProbeEvent['outcome'] = !r.ok ? 'error' : r.wrongAnswer ? 'wrong_answer' : r.latency.total > target.latencyCeilingMs ? 'slow' : 'ok';
  const event: ProbeEvent = { type: 'probe', ts, key: target.key, location: target.location, outcome, latency_ms: r.latency };
  if (r.errorClass) event.error_class = r.errorClass;
  if (r.status !== undefined) event.status = r.status;
  if (cold) event.cold = true;
  if (cost !== undefined) event.cost_usd = cost;
  if (!r.ok) Object.assign(event, failureEvidence(r, apiKey));
  Object.assign(event, answerEvidence(r, apiKey));
  return event;
}

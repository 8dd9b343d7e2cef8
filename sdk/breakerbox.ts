/**
 * The SDK instance: a registry that creates each key's policies on demand, the shared
 * retry and cost budgets, operations (fallback chains), events, configuration review and,
 * when a collector is configured, the telemetry reporter. With no collector it is a plain
 * resilience library.
 */
import type { BreakerKey, BreakerStateName, ConfigEvent, TelemetryEvent, TransitionEvent } from '@breakerbox/protocol';
import { DEFAULT_LATENCY_BOUNDS_MS } from '@breakerbox/protocol';
import { systemClock, type Clock } from './clock.ts';
import { Emitter, type EventSubscriber } from './events.ts';
import type { CallEvent } from './call-event.ts';
import { cleanKey, keyId } from '@breakerbox/protocol';
import { KeyPolicy, type AttemptFn, type CallOptions, type SdkContext } from './key-policy.ts';
import { resolveSettings, settingsForTelemetry, type ResolvedKeySettings } from './settings.ts';
import { RetryBudget, DEFAULT_RETRY_BUDGET_OPTIONS } from './policies/retry-budget.ts';
import { CostBudget } from './policies/cost-budget.ts';
import { PriceTable } from './pricing.ts';
import { runChain, type ChainHost, type Operation, type OperationSpec } from './policies/fallback.ts';
import type { BreakerTransition } from './policies/breaker.ts';
import { DEFAULT_BREAKER_OPTIONS } from './policies/breaker-options.ts';
import { KeyStats } from './telemetry/key-stats.ts';
import { sampleLimitsOf } from './telemetry/key-samples.ts';
import { ExternalKey } from './adapters/external-key.ts';
import { TaskStats, type TaskOutcome } from './telemetry/task-stats.ts';
import { drainEvents } from './telemetry/drain-events.ts';
import { PassthroughNotes } from './telemetry/passthrough-notes.ts';
import { TelemetryReporter, type ReporterStats } from './telemetry/reporter.ts';
import { reviewFallbacks, type ReviewedRoute } from './config-review.ts';
import { createBreakerboxFetch, type BreakerboxFetchOptions } from './fetch/create-fetch.ts';
import { checkBreakerboxOptions, checkKeySettings, checkOperationSpec } from './options/validate-options.ts';
import { invalid } from './options/option-checks.ts';
import type { BreakerboxOptions } from './breakerbox-options.ts';
import type { FetchLike } from './fetch/http-attempt.ts';
import type { FetchHost } from './fetch/fetch-host.ts';
import type { AdapterHost } from './adapters/adapter-host.ts';
import { FleetSubscription, type FleetStats } from './fleet/fleet-subscription.ts';
import type { FleetDecisionOutcome } from './fleet/apply-decision.ts';
import { DrillController, type DrillOutcome, type DrillState } from './drills/drill-controller.ts';
import type { DrillTraffic } from './drills/drill-traffic.ts';
import { ShadowRunner } from './shadow/shadow-runner.ts';

interface KeyConfig {
  fallbacks: BreakerKey[];
  warnings: string[];
}

/**
 * One SDK instance. Create it with `createBreakerbox`. It is the host the fetch wrapper and
 * the opossum/cockatiel adapters are built on, through their narrow interfaces.
 */
export class Breakerbox implements FetchHost, AdapterHost {
  private readonly ctx: SdkContext;
  private readonly registry = new Map<string, KeyPolicy>();
  private readonly taskStats = new Map<string, TaskStats>();
  private readonly configs = new Map<string, KeyConfig>();
  private readonly externals: KeyStats[] = [];
  private defaultSettings: ResolvedKeySettings | undefined;
  private readonly transitions = new Emitter<BreakerTransition>();
  private readonly warningsEmitter = new Emitter<string>();
  private readonly warned = new Set<string>();
  private readonly reporter: TelemetryReporter | undefined;
  private readonly calls = new Emitter<CallEvent>();
  private readonly chainHost: ChainHost;
  private readonly fleet: FleetSubscription | undefined;
  private readonly drills: DrillController | undefined;
  /** Shadow traffic: mirrors of a share of requests to candidate models, and their aggregates. */
  readonly shadows: ShadowRunner;
  /** Requests forwarded unprotected: counted for telemetry, announced once per host and path family. */
  private readonly passthrough: PassthroughNotes;

  /** Subscribes to every logical call's summary (see `CallEvent`). */
  readonly onCall: EventSubscriber<CallEvent> = this.calls.on;
  /** Subscribes to every breaker's state changes, first state included. */
  readonly onStateChange: EventSubscriber<BreakerTransition> = this.transitions.on;
  /**
   * Subscribes to configuration warnings. With no subscriber, warnings go to
   * `process.emitWarning` (printed once by Node).
   */
  readonly onWarning: EventSubscriber<string> = this.warningsEmitter.on;

  constructor(private readonly options: BreakerboxOptions = {}) {
    // Every option is checked here, so a mistake fails at start-up naming its field, not inside a model call.
    checkBreakerboxOptions(options, '');
    // Drills arrive over the collector's feed: enabled without a collector, they could never run.
    if (options.drills?.enabled && !options.telemetry) invalid('drills.enabled', 'false unless telemetry is set (drills come from the collector)', true);
    const clock = options.clock ?? systemClock;
    this.ctx = {
      clock,
      random: options.random ?? Math.random,
      retryBudget: new RetryBudget({ ...DEFAULT_RETRY_BUDGET_OPTIONS, ...options.retryBudget }, clock),
      costBudget: new CostBudget(options.budget ?? {}, clock),
      prices: new PriceTable(options.prices),
      calls: this.calls,
      latencyBounds: options.latencyBoundsMs ?? DEFAULT_LATENCY_BOUNDS_MS,
      sampleLimits: sampleLimitsOf(options.telemetry),
      // A key starting to fail is reported at once: the collector's probes and fleet decision need not wait out the interval.
      onFailureOnset: (stats) => {
        const w = this.reporter ? stats.drain(clock.now()) : undefined;
        if (w) this.reporter!.cutNow([w]);
      },
    };
    this.chainHost = {
      clock,
      random: this.ctx.random,
      policy: (key) => this.policy(key),
      tasks: (operation) => {
        let t = this.taskStats.get(operation);
        if (!t) {
          t = new TaskStats(operation, clock.now());
          this.taskStats.set(operation, t);
        }
        return t;
      },
      calls: this.calls,
    };
    this.shadows = new ShadowRunner(
      { clock, random: this.ctx.random, latencyBounds: this.ctx.latencyBounds, policy: (key) => this.policy(key) },
      options.shadowLimits,
    );
    // Fail at construction, not on the first call, if the defaults are invalid.
    resolveSettings(options.defaults);
    // On with a collector unless `fleet: false` (docs/fleet.md): the collector decides only on probe-confirmed outages, and every decision is bounded by its TTL.
    const fleetOn = options.telemetry !== undefined && options.fleet !== false;
    const drillsOn = options.telemetry !== undefined && options.drills?.enabled === true;
    if (drillsOn) {
      this.drills = new DrillController(true, options.telemetry!.service, clock, this.ctx.latencyBounds, {
        finished: (run) => this.reporter?.finishDrill(run.id, run.collect(clock.now())),
        stepEnded: (run) => this.reporter?.cutNow(run.collect(clock.now()), run.id),
      });
    }
    // One subscription carries both: fleet decisions (applied only with `fleet`) and drills.
    if (options.telemetry && (fleetOn || drillsOn)) {
      const drills = this.drills;
      this.fleet = new FleetSubscription(options.telemetry.url, options.telemetry.token, typeof options.fleet === 'object' ? options.fleet : {}, {
        keys: () => this.keys(),
        breakerOf: (key) => this.registry.get(keyId(key))?.breaker,
        hasFallback: (key) => (this.configs.get(keyId(key))?.fallbacks.length ?? 0) > 0,
      }, clock, this.ctx.random, { decisions: fleetOn, service: options.telemetry.service, onDrill: drills ? (c) => drills.apply(c) : undefined });
    }
    this.passthrough = new PassthroughNotes(options.telemetry !== undefined, (message, code) => this.warn(message, code));
    if (options.telemetry) {
      const fleet = fleetOn ? this.fleet : undefined;
      this.reporter = new TelemetryReporter(
        { ...options.telemetry, clock, random: this.ctx.random, passthrough: this.passthrough.tally, ...(fleet ? { fleetTotals: () => fleet.totals() } : {}) },
        {
          collect: (now) => this.collect(now),
          collectDrill: (now) => {
            const run = this.drills?.current;
            return run ? { id: run.id, events: run.collect(now) } : undefined;
          },
        },
      );
    }
  }

  /** The clock this instance runs on. */
  get clock(): Clock {
    return this.ctx.clock;
  }

  /** The cost budget (read what was spent). */
  get costBudget(): CostBudget {
    return this.ctx.costBudget;
  }

  /** The price table. */
  get prices(): PriceTable {
    return this.ctx.prices;
  }

  /** The policies of `key`, created on first use. */
  policy(key: BreakerKey): KeyPolicy {
    const id = keyId(key);
    let p = this.registry.get(id);
    if (p === undefined) p = this.create(id, key);
    return p;
  }

  /** Runs `fn` under `key`'s policies (see `KeyPolicy.execute`). */
  execute<T>(key: BreakerKey, fn: AttemptFn<T>, opts?: CallOptions<T>): Promise<T> {
    return this.policy(key).execute(fn, opts);
  }

  /**
   * A `fetch` for the official `openai` / `@anthropic-ai/sdk` clients (`fetch` option,
   * with `maxRetries: 0`): every model request runs under these policies and fallbacks.
   */
  fetch(options?: BreakerboxFetchOptions): FetchLike {
    return createBreakerboxFetch(this, options);
  }

  /**
   * A key whose breaker lives in another library (see the opossum and cockatiel adapters):
   * its windows and transitions are reported like the SDK's own.
   */
  externalKey(key: BreakerKey, initial: BreakerStateName = 'closed', latencyCeilingMs = DEFAULT_BREAKER_OPTIONS.latencyCeilingMs): ExternalKey {
    const k = cleanKey(key);
    const stats = new KeyStats(k, this.ctx.latencyBounds, this.ctx.clock.now());
    this.externals.push(stats);
    return new ExternalKey(k, initial, stats, this.ctx.clock, (t) => {
      this.transitions.emit(t);
      if (this.reporter) this.reporter.push(transitionEvent(t), true);
    }, latencyCeilingMs);
  }

  /** Records one task run outside `operation` (e.g. by an adapter), for the `tasks` event. */
  recordTask(operation: string, outcome: TaskOutcome): void {
    this.chainHost.tasks(operation).record(outcome);
  }

  /** Keys created so far. */
  keys(): BreakerKey[] {
    return [...this.registry.values()].map((p) => p.key);
  }

  /** Defines an operation (a fallback chain); its fallbacks are reviewed now. */
  operation<I, T>(spec: OperationSpec<I, T>): Operation<I, T> {
    checkOperationSpec(spec, '');
    const keyed = spec.levels.filter((l) => l.key);
    const warnings = keyed.length > 1 ? this.declareFallbacks({ key: keyed[0]!.key! }, keyed.slice(1).map((l) => ({ key: l.key! }))) : [];
    return {
      name: spec.name,
      warnings,
      run: (input, opts) => runChain(this.chainHost, spec, input, opts),
    };
  }

  /**
   * Declares the fallbacks of a primary route: reviews them (warning about ones that
   * would fail with it) and reports them in the primary key's `config` event.
   */
  declareFallbacks(primary: ReviewedRoute, fallbacks: readonly ReviewedRoute[]): string[] {
    const warnings = reviewFallbacks(primary, fallbacks);
    for (const w of warnings) this.warn(w);
    const policy = this.policy(primary.key);
    const cfg = this.configs.get(keyId(primary.key))!;
    cfg.fallbacks = fallbacks.map((f) => cleanKey(f.key));
    cfg.warnings = warnings;
    this.pushConfig(policy);
    return warnings;
  }

  /** Drains every key's window and every operation's tasks since the last collection. */
  collect(now = this.ctx.clock.now()): TelemetryEvent[] {
    const out = drainEvents(Array.from(this.registry.values(), (p) => p.stats), now);
    drainEvents(this.externals, now, out);
    drainEvents(this.taskStats.values(), now, out);
    out.push(...this.shadows.collect(now));
    return out;
  }

  /** Reporter health (undefined without a collector). */
  telemetryStats(): ReporterStats | undefined {
    return this.reporter?.stats();
  }

  /** Subscribes to telemetry push failures (no-op without a collector). */
  onTelemetryError(listener: (e: { status?: number; message: string; dropped: boolean }) => void): () => void {
    return this.reporter ? this.reporter.onError(listener) : () => undefined;
  }

  /** Sends what is buffered now (bounded wait; never rejects). */
  flush(timeoutMs?: number): Promise<void> {
    return this.reporter ? this.reporter.flush(timeoutMs) : Promise.resolve();
  }

  /** Subscribes to what each fleet decision did (applied, renewed, ignored and why); a no-op without the feed. */
  onFleetDecision(listener: (o: FleetDecisionOutcome) => void): () => void {
    return this.fleet ? this.fleet.onDecision(listener) : () => undefined;
  }

  /** The fleet feed's state and counters (undefined when it is off; also open for drills alone). */
  fleetStats(): FleetStats | undefined {
    return this.fleet?.stats();
  }

  /** The running drill, when a call whose chain starts at `primary` is its traffic (the fetch wrapper asks). */
  drillTraffic(primary: BreakerKey): DrillTraffic | undefined {
    return this.drills?.trafficFor(primary);
  }

  /** Subscribes to what each drill command did and to each drill's end; a no-op with drills off. */
  onDrill(listener: (o: DrillOutcome) => void): () => void {
    return this.drills ? this.drills.onDrill(listener) : () => undefined;
  }

  /** Whether drills are off, idle or running (which, until when). */
  drillState(): DrillState {
    return this.drills ? this.drills.state() : { state: 'off' };
  }

  /** Ends the fleet feed and any drill, flushes and stops the reporter's timers. */
  close(timeoutMs?: number): Promise<void> {
    this.fleet?.close();
    this.drills?.close();
    this.shadows.close();
    return this.reporter ? this.reporter.close(timeoutMs) : Promise.resolve();
  }

  private create(id: string, key: BreakerKey): KeyPolicy {
    const k = cleanKey(key);
    const own = this.options.keySettings?.(k);
    if (own !== undefined) checkKeySettings(own, 'keySettings()');
    // Keys without settings of their own share one resolved object (memory per key matters at 10k keys).
    const settings = own ? resolveSettings(this.options.defaults, own) : (this.defaultSettings ??= resolveSettings(this.options.defaults));
    const p = new KeyPolicy(k, settings, this.ctx);
    this.registry.set(id, p);
    this.configs.set(id, { fallbacks: [], warnings: [] });
    p.breaker.onStateChange((t) => {
      this.transitions.emit(t);
      if (!this.reporter) return;
      // A transition of a key the running drill drills or touched is the drill's: it must not page anyone.
      const run = this.drills?.current;
      if (run && (run.touched(t.key) || run.drills(t.key))) this.reporter.pushDrill(run.id, transitionEvent(t), true);
      else this.reporter.push(transitionEvent(t), true);
    });
    p.breaker.announce();
    this.pushConfig(p);
    this.fleet?.keyAdded(k);
    return p;
  }

  private pushConfig(p: KeyPolicy): void {
    if (!this.reporter) return;
    const cfg = this.configs.get(keyId(p.key))!;
    const ev: ConfigEvent = {
      type: 'config',
      ts: this.ctx.clock.now(),
      key: p.key,
      settings: settingsForTelemetry(p.settings),
      fallbacks: cfg.fallbacks,
      warnings: cfg.warnings,
    };
    this.reporter.push(ev, true);
  }

  /**
   * Counts a request the fetch wrapper forwarded unprotected (into the next telemetry batch's
   * `passthrough`, per host, path family and method) and warns once per host and path family
   * (`BB_WARN_SDK_PASSTHROUGH`). Never throws, never blocks.
   */
  notePassthrough(url: URL, method: string, why: string): void {
    this.passthrough.note(url, method, why);
  }

  /**
   * Reports a warning once: to `onWarning` listeners, or else to `process.emitWarning` with
   * `code`. Used by the configuration review and by the fetch wrapper (a route that
   * rejected assistant prefill).
   */
  warn(message: string, code = 'BB_WARN_SDK_FALLBACK_NOT_INDEPENDENT'): void {
    if (this.warned.has(message)) return;
    // Bounded: warnings are per configured route, but never let them grow without limit.
    if (this.warned.size >= 1_000) return;
    this.warned.add(message);
    if (this.warningsEmitter.size) this.warningsEmitter.emit(message);
    else process.emitWarning(message, { code });
  }
}

function transitionEvent(t: BreakerTransition): TransitionEvent {
  const ev: TransitionEvent = { type: 'transition', ts: t.ts, key: t.key, from: t.from, to: t.to, reason: t.reason };
  if (t.cooldownMs !== undefined) ev.cooldown_ms = t.cooldownMs;
  if (t.attempt !== undefined) ev.attempt = t.attempt;
  ev.rates = { error: round4(t.rates.error), slow: round4(t.rates.slow) };
  return ev;
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Creates an SDK instance. */
export function createBreakerbox(options?: BreakerboxOptions): Breakerbox {
  return new Breakerbox(options);
}

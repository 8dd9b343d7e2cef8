/**
 * The SDK's one long-lived subscription to the collector's fleet feed (docs/fleet.md): the
 * same URL and ingest token as telemetry, opened once the instance uses a key, reopened
 * (debounced) when it starts using a key the feed does not cover, and kept alive with
 * backoff. Every timer runs on the SDK's clock and is a background one; the socket is
 * unref'd; a call never waits on any of it. Whatever the collector does — down, slow,
 * silent, garbage, a refused token — the only local effects are the decisions that pass
 * `applyFleetDecision`, each bounded by its time-to-live.
 */
import { FLEET_EVENTS, MAX_FLEET_FEED_KEYS, fleetKeyTag, parseDrillCommand, parseFleetDecision, type BreakerKey, type DrillCommand, type SseEvent } from '@breakerbox/protocol';
import type { Agent } from 'node:http';
import type { Clock, TimerHandle } from '../clock.ts';
import { Emitter, type EventSubscriber } from '../events.ts';
import { applyFleetDecision, type FleetApplyHost, type FleetDecisionOutcome, type FleetIgnoreReason } from './apply-decision.ts';
import { createFeedAgent, openFeed, type FeedEnd } from './feed-connection.ts';

/** `fleet` option of `createBreakerbox` (with `telemetry` set; `fleet: false` turns the feed off). */
export interface FleetOptions {
  /**
   * Apply `outage` / `drain` decisions to keys with no fallback declared (default false:
   * with nowhere to fail over, opening the breaker fails every call on the collector's
   * word alone, while the breaker's own signals still protect the key).
   */
  openWithoutFallback?: boolean;
  /** Longest one decision may hold a breaker open without renewal, ms (default 120 000; the collector sends 60 000). */
  maxTtlMs?: number;
  /** First reconnect delay, ms (default 1 000); doubles up to `maxReconnectMs` (default 60 000), jittered. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** A feed silent this long (no decision, no heartbeat) is reopened, ms (default 45 000: three missed heartbeats). */
  idleTimeoutMs?: number;
  /** A feed not answering within this is abandoned and retried, ms (default 10 000). */
  connectTimeoutMs?: number;
  /** Largest event accepted, bytes (default 16 384); a larger one ends the connection. */
  maxEventBytes?: number;
  /** A new key not covered by the open feed reopens it after this, ms (default 2 000), so a burst of new keys costs one reconnect. */
  resubscribeDelayMs?: number;
}

/** The subscription's health and what it did. */
export interface FleetStats {
  state: 'idle' | 'connecting' | 'open' | 'backoff' | 'closed';
  /** Decisions that made a breaker transition. */
  applied: number;
  /** Decisions that renewed a fleet deadline already in force. */
  renewed: number;
  /** Decisions (and unreadable events) that did nothing, by why. */
  ignored: Record<FleetIgnoreReason, number>;
  connects: number;
  failures: number;
  lastError?: string;
}

/** What the subscription needs of the SDK instance. */
export interface FleetSubscriptionHost extends FleetApplyHost {
  /** The keys in use now. */
  keys(): BreakerKey[];
}

/**
 * What the one feed carries for this instance: fleet decisions (applied only when the
 * `fleet` option is on) and drill commands (docs/drills.md; only with drills enabled).
 */
export interface FeedUse {
  /** Apply fleet decisions (the `fleet` option); false: a drills-only feed, decisions are dropped unread. */
  decisions: boolean;
  /** The instance's service (`?service=`, sent only with `onDrill`), which drill commands are addressed to. */
  service?: string | undefined;
  /** Drill events, parsed (`null`: one that did not parse); absent when drills are off. */
  onDrill?: ((command: DrillCommand | null) => void) | undefined;
}

type Resolved = Required<FleetOptions>;

const DEFAULTS: Resolved = {
  openWithoutFallback: false,
  maxTtlMs: 120_000,
  reconnectMs: 1_000,
  maxReconnectMs: 60_000,
  idleTimeoutMs: 45_000,
  connectTimeoutMs: 10_000,
  maxEventBytes: 16_384,
  resubscribeDelayMs: 2_000,
};

/** The subscription; see the module comment. */
export class FleetSubscription {
  private readonly o: Resolved;
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly outcomes = new Emitter<FleetDecisionOutcome>();
  private readonly s: FleetStats = {
    state: 'idle', applied: 0, renewed: 0, connects: 0, failures: 0,
    ignored: { unknown_key: 0, no_fallback: 0, manual_override: 0, not_open: 0, overruled: 0, invalid: 0 },
  };
  /** Tags the open (or opening) feed covers; null = every key. */
  private covered: Set<string> | null = new Set();
  private cancel: (() => void) | undefined;
  private timer: TimerHandle | undefined;
  private watchdog: TimerHandle | undefined;
  private attempt = 0;
  private closed = false;
  /** The watchdog ended the connection (no answer, or silence). */
  private cutForSilence = false;
  /** Subscribes to every decision's outcome (applied, renewed, ignored and why). */
  readonly onDecision: EventSubscriber<FleetDecisionOutcome> = this.outcomes.on;

  constructor(
    url: string,
    private readonly token: string | undefined,
    options: FleetOptions,
    private readonly host: FleetSubscriptionHost,
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly use: FeedUse = { decisions: true },
  ) {
    this.o = { ...DEFAULTS, ...definedOnly(options) };
    this.base = new URL('v1/fleet', url.endsWith('/') ? url : `${url}/`);
    this.agent = createFeedAgent(this.base);
    // Drills must reach an instance before it makes its first call: open the feed now.
    if (use.onDrill) this.schedule(0);
  }

  /** Counters and state. */
  stats(): FleetStats {
    return { ...this.s, ignored: { ...this.s.ignored } };
  }

  /** Running totals the telemetry batches report (`fleet`): renewals count as applied. */
  totals(): { applied: number; ignored: number } {
    const ignored = Object.values(this.s.ignored).reduce((a, b) => a + b, 0);
    return { applied: this.s.applied + this.s.renewed, ignored };
  }

  /** The instance started using `key`: the feed is opened, or reopened soon, if it does not cover it. */
  keyAdded(key: BreakerKey): void {
    if (this.closed || this.covered === null || this.covered.has(fleetKeyTag(key))) return;
    if (this.s.state === 'backoff' || this.timer !== undefined) return; // the next attempt subscribes to it
    if (this.s.state === 'idle') {
      this.schedule(0);
      return;
    }
    this.schedule(this.o.resubscribeDelayMs);
  }

  /** Ends the feed and every timer; nothing happens afterwards. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.s.state = 'closed';
    this.clearTimers();
    this.cancel?.();
    this.agent.destroy();
  }

  /** Handles one feed event (the connection calls it; exposed for tests of the safety rules). */
  handle(e: SseEvent): void {
    if (e.event === FLEET_EVENTS.drill) {
      if (!this.use.onDrill) return;
      try {
        this.use.onDrill(parseDrillCommand(e.data));
      } catch {
        // A bug in applying a drill must not end the feed or reach the host.
      }
      return;
    }
    if (e.event !== FLEET_EVENTS.decision || !this.use.decisions) return;
    const d = parseFleetDecision(e.data);
    const out = d === null ? ({ outcome: 'ignored', decision: null, why: 'invalid' } as const) : safely(() => applyFleetDecision(d, this.host, this.o), d);
    if (out.outcome === 'ignored') this.s.ignored[out.why]++;
    else this.s[out.outcome]++;
    if (this.outcomes.size) this.outcomes.emit(out);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, ms, true);
  }

  private connect(): void {
    if (this.closed) return;
    // The feed being replaced ends unheard: its end must not schedule another attempt.
    const old = this.cancel;
    this.cancel = undefined;
    old?.();
    // A drills-only feed names no keys (it applies no decision); a fleet feed names the keys in use.
    const keys = this.use.decisions ? this.host.keys() : [];
    if (keys.length === 0 && !this.use.onDrill) {
      this.s.state = 'idle';
      this.covered = new Set();
      return;
    }
    const tags = keys.length > MAX_FLEET_FEED_KEYS || !this.use.decisions ? null : new Set(keys.map(fleetKeyTag));
    this.covered = tags;
    const url = new URL(this.base);
    if (tags && tags.size > 0) url.searchParams.set('keys', [...tags].join(','));
    // Only an instance that runs drills names its service: the collector counts these feeds as the
    // service's drill subscribers, and refuses a drill nobody would run (docs/drills.md).
    if (this.use.service && this.use.onDrill) url.searchParams.set('service', this.use.service);
    this.s.state = 'connecting';
    this.s.connects++;
    let opened = false;
    this.arm(this.o.connectTimeoutMs);
    const cancel = openFeed(url, this.token, this.agent, this.o.maxEventBytes, {
      onOpen: () => {
        opened = true;
        this.attempt = 0;
        this.s.state = 'open';
        this.arm(this.o.idleTimeoutMs);
      },
      onBytes: () => this.arm(this.o.idleTimeoutMs),
      onEvent: (e) => this.handle(e),
      onEnd: (end) => {
        if (this.cancel !== cancel) return;
        this.cancel = undefined;
        this.ended(end, opened);
      },
    });
    this.cancel = cancel;
  }

  /** (Re)arms the watchdog: no answer, or silence, for `ms` ends the connection. */
  private arm(ms: number): void {
    if (this.watchdog !== undefined) this.clock.clearTimeout(this.watchdog);
    this.watchdog = this.clock.setTimeout(() => {
      this.watchdog = undefined;
      this.cutForSilence = true;
      this.cancel?.();
    }, ms, true);
  }

  private ended(end: FeedEnd, opened: boolean): void {
    if (this.watchdog !== undefined) this.clock.clearTimeout(this.watchdog);
    this.watchdog = undefined;
    if (this.closed) return;
    const silent = this.cutForSilence;
    this.cutForSilence = false;
    if (this.timer !== undefined) return; // a resubscription is already on its way
    if (end.kind === 'closed' && opened && !silent) {
      // The collector ended a healthy feed (a restart, a load balancer): reopen soon.
      this.s.state = 'backoff';
      this.schedule(this.jitter(this.o.reconnectMs));
      return;
    }
    this.s.failures++;
    this.s.lastError = silent ? 'the feed was silent past its timeout' : (describe(end) ?? 'the collector ended the feed');
    this.s.state = 'backoff';
    // A refused token waits the longest: retrying it fast cannot help.
    const auth = end.kind === 'status' && (end.status === 401 || end.status === 403);
    const base = auth ? this.o.maxReconnectMs : Math.min(this.o.maxReconnectMs, this.o.reconnectMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    this.schedule(this.jitter(base));
  }

  private jitter(ms: number): number {
    return ms / 2 + (this.random() * ms) / 2;
  }

  private clearTimers(): void {
    for (const t of [this.timer, this.watchdog]) if (t !== undefined) this.clock.clearTimeout(t);
    this.timer = undefined;
    this.watchdog = undefined;
  }
}

function describe(end: FeedEnd): string | undefined {
  if (end.kind === 'status') return `the collector answered ${end.status}`;
  if (end.kind === 'error') return `collector unreachable: ${end.message}`;
  if (end.kind === 'oversized') return 'the feed sent an event over maxEventBytes';
  return undefined;
}

function safely(apply: () => FleetDecisionOutcome, d: NonNullable<FleetDecisionOutcome['decision']>): FleetDecisionOutcome {
  try {
    return apply();
  } catch {
    // A bug here must not reach the host; the decision counts as unreadable.
    return { outcome: 'ignored', decision: d, why: 'invalid' };
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Runs shadow traffic for one SDK instance (issue 28): decides which requests are mirrored
 * to a candidate model, bounds the mirrors in flight, gives each its own deadline, pairs
 * the candidate's answer with the primary's and aggregates both per pair for the reporter.
 *
 * Caller safety: a mirror never holds up, changes or fails the caller's call. It is decided
 * before the primary runs and sent beside it, on its own abort signal; everything it does
 * is caught here; its timer is a background one (it never keeps the process alive); `close`
 * aborts what is in flight. A mirror is not picked for a fail-closed or non-idempotent
 * request, nor while the primary's breaker is not closed; when every mirror slot is busy,
 * or the primary's own calls queue for its bulkhead, the mirror is shed (counted as
 * `dropped`), never queued. Its cost goes into the pair's figures only — never a key's
 * window, a task's cost or the cost budget.
 */
import type { BreakerKey, ShadowEvent } from '@breakerbox/protocol';
import { classifyThrown, keyId } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import type { AnswerProperties } from './answer-properties.ts';
import { DEFAULT_SHADOW_LIMITS, type ShadowLimits } from './shadow-options.ts';
import { ShadowStats } from './shadow-stats.ts';

/** What the runner needs from the SDK instance. */
export interface ShadowRunnerHost {
  clock: Clock;
  random: () => number;
  latencyBounds: readonly number[];
  /** The primary's breaker state and bulkhead queue (policies created on first use). */
  policy(key: BreakerKey): { breaker: { readonly state: { readonly name: string } }; bulkhead: { readonly queued: number } };
}

/** A request about to run, and where it could be mirrored. */
export interface MirrorRequest {
  key: BreakerKey;
  candidate: BreakerKey;
  share: number;
  failClosed: boolean;
  idempotent: boolean;
  asksJson: boolean;
}

/** One picked mirror: the signal its send runs under, and where the primary's answer goes. */
export interface Mirror {
  readonly signal: AbortSignal;
  /** The primary's answer is known (call once; later calls are ignored). */
  primaryDone(p: AnswerProperties): void;
}

/** Picks, sends and pairs mirrors; see the module comment. */
export class ShadowRunner {
  private readonly limits: Required<ShadowLimits>;
  private readonly inFlight = new Set<AbortController>();
  /** One aggregate per configured pair (bounded by the configuration, not by traffic). */
  private readonly pairs = new Map<string, ShadowStats>();
  private closed = false;

  constructor(
    private readonly host: ShadowRunnerHost,
    limits: ShadowLimits = {},
  ) {
    this.limits = { ...DEFAULT_SHADOW_LIMITS, ...limits };
  }

  /** Mirrors in flight now. */
  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Decides whether `req` is mirrored; if so starts `send` (the candidate's request, under
   * the returned signal) and returns the mirror, else undefined. Never throws.
   */
  begin(req: MirrorRequest, send: (signal: AbortSignal) => Promise<AnswerProperties>): Mirror | undefined {
    try {
      if (this.closed || !(req.share > 0) || req.failClosed || !req.idempotent) return undefined;
      if (this.host.random() >= req.share) return undefined;
      const policy = this.host.policy(req.key);
      if (policy.breaker.state.name !== 'closed') return undefined;
      const stats = this.statsOf(req.key, req.candidate);
      if (this.inFlight.size >= this.limits.maxConcurrent || policy.bulkhead.queued > 0) {
        stats.drop();
        return undefined;
      }
      return this.start(req, stats, send);
    } catch {
      return undefined;
    }
  }

  /** Drains every pair's aggregate since the last collection. */
  collect(now: number): ShadowEvent[] {
    const out: ShadowEvent[] = [];
    for (const s of this.pairs.values()) {
      const e = s.drain(now);
      if (e) out.push(e);
    }
    return out;
  }

  /** Aborts every mirror in flight; later requests are not mirrored. */
  close(): void {
    this.closed = true;
    for (const ac of this.inFlight) ac.abort(new Error('breakerbox closed'));
    this.inFlight.clear();
  }

  private statsOf(key: BreakerKey, candidate: BreakerKey): ShadowStats {
    const id = `${keyId(key)}\u0000${keyId(candidate)}`;
    let s = this.pairs.get(id);
    if (!s) {
      s = new ShadowStats(key, candidate, this.host.latencyBounds, this.host.clock.now());
      this.pairs.set(id, s);
    }
    return s;
  }

  private start(req: MirrorRequest, stats: ShadowStats, send: (signal: AbortSignal) => Promise<AnswerProperties>): Mirror {
    const { clock } = this.host;
    const ac = new AbortController();
    this.inFlight.add(ac);
    const started = clock.now();
    let primary: AnswerProperties | undefined;
    let shadow: AnswerProperties | undefined;
    let recorded = false;
    const pairUp = () => {
      if (recorded || !primary || !shadow) return;
      recorded = true;
      stats.record(primary, shadow, req.asksJson);
    };
    const settle = (p: AnswerProperties) => {
      if (shadow) return;
      shadow = p;
      clock.clearTimeout(timer);
      this.inFlight.delete(ac);
      pairUp();
    };
    const failed = (err: unknown, cls = classifyThrown(err)): AnswerProperties =>
      ({ ok: false, errorClass: cls, refusal: cls === 'policy', latencyMs: clock.now() - started, outputTokens: 0, costUsd: 0 });
    const timer = clock.setTimeout(() => {
      // The mirror's own deadline: its answer is a timeout now, whatever the candidate does later.
      settle(failed(undefined, 'timeout'));
      ac.abort(new Error('shadow timeout'));
    }, this.limits.timeoutMs, true);
    // Sent on a later turn: nothing of the candidate's request runs on the caller's path.
    void Promise.resolve()
      .then(() => send(ac.signal))
      .then(
        (p) => settle(p),
        (err) => settle(failed(err)),
      )
      .catch(() => undefined);
    return {
      signal: ac.signal,
      primaryDone: (p) => {
        if (primary) return;
        primary = p;
        pairUp();
      },
    };
  }
}

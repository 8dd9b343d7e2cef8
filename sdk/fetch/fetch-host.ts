/**
 * What the fetch wrapper needs from the SDK instance that builds it — and nothing else, so
 * the wrapper depends on this interface and `Breakerbox` implements it (as cockatiel's
 * policies depend on `IPolicy`), not the other way round in a cycle.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { Clock } from '../clock.ts';
import type { ReviewedRoute } from '../config-review.ts';
import type { Operation, OperationSpec } from '../policies/fallback.ts';
import type { ResolvedKeySettings } from '../settings.ts';
import type { DrillTraffic } from '../drills/drill-traffic.ts';
import type { ShadowRunner } from '../shadow/shadow-runner.ts';

/** The SDK instance as the fetch wrapper sees it. */
export interface FetchHost {
  /** The clock the policies run on (deadlines, durations). */
  readonly clock: Clock;
  /** Whether a spending ceiling is set: only then is a request's cost estimated before sending. */
  readonly costBudget: { readonly active: boolean };
  /** Prices per model, for that estimate (USD). */
  readonly prices: { cost(model: string, inputTokens: number, outputTokens: number): number };
  /** `key`'s policies (created on first use); the wrapper reads their timeouts (and a drill, the latency ceiling). */
  policy(key: BreakerKey): { readonly settings: Pick<ResolvedKeySettings, 'timeouts' | 'breaker'> };
  /** The running drill, when a call whose chain starts at `primary` is its traffic (docs/drills.md). */
  drillTraffic?(primary: BreakerKey): DrillTraffic | undefined;
  /** Defines an operation (a fallback chain) over the host's policies. */
  operation<I, T>(spec: OperationSpec<I, T>): Operation<I, T>;
  /** Reviews and reports a primary route's fallbacks; resolves to the review's warnings. */
  declareFallbacks(primary: ReviewedRoute, fallbacks: readonly ReviewedRoute[]): string[];
  /** The instance's shadow traffic runner (mirrors, their limits and their aggregates). */
  readonly shadows: Pick<ShadowRunner, 'begin'>;
  /** Counts a request forwarded unprotected (`why`: what the wrapper saw) and announces it once per host and path family. */
  notePassthrough?(url: URL, method: string, why: string): void;
  /** Reports a warning once, under `code`. */
  warn(message: string, code?: string): void;
}

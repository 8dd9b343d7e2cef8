/** The options of `createBreakerbox` (one SDK instance): all optional. */
import type { BreakerKey } from '@breakerbox/protocol';
import type { Clock } from './clock.ts';
import type { KeySettings } from './settings.ts';
import type { RetryBudgetOptions } from './policies/retry-budget.ts';
import type { CostBudgetOptions } from './policies/cost-budget.ts';
import type { ModelPrice } from './pricing.ts';
import type { SampleOptions } from './telemetry/key-samples.ts';
import type { ReporterOptions } from './telemetry/reporter.ts';
import type { FleetOptions } from './fleet/fleet-subscription.ts';
import type { DrillOptions } from './drills/drill-controller.ts';
import type { ShadowLimits } from './shadow/shadow-options.ts';

/** Options of `createBreakerbox`; everything is optional. */
export interface BreakerboxOptions {
  /** Settings for every key. */
  defaults?: KeySettings;
  /** Per-key overrides (e.g. a lower `minCalls` for a rarely called model). Called once per key. */
  keySettings?: (key: BreakerKey) => KeySettings | undefined;
  retryBudget?: Partial<RetryBudgetOptions>;
  /** Spending ceilings; refused before sending. */
  budget?: CostBudgetOptions;
  /** Prices per model (USD per million tokens), over the built-in table. */
  prices?: Record<string, ModelPrice>;
  /** Latency histogram bounds (default: the protocol's shared bounds). */
  latencyBoundsMs?: readonly number[];
  /** Push telemetry to a collector. Without it, nothing leaves the process. */
  telemetry?: Omit<ReporterOptions, 'clock' | 'random' | 'fleetTotals' | 'passthrough'> & SampleOptions;
  /**
   * The collector's fleet feed (docs/fleet.md), off unless asked for (`true` or an object of
   * options; needs `telemetry`, whose URL and token it uses): probe-confirmed outages open this
   * instance's breakers for a bounded time (their own half-open trials go on), recoveries send
   * them to half-open at once. Off by default because the fleet benchmark does not meet its
   * primary-attempts target: the probe-confirmed decision arrives after the instances' own
   * breakers have tripped (docs/fleet.md, "Status").
   */
  fleet?: boolean | FleetOptions;
  /**
   * Failure drills (docs/drills.md), off unless `enabled` (needs `telemetry`): the instance
   * accepts drill commands for its own service over the fleet feed and injects their faults
   * at its fetch layer. For staging only — enable it from the environment, e.g.
   * `drills: { enabled: process.env.BREAKERBOX_DRILLS === 'on' }`.
   */
  drills?: DrillOptions;
  /** Limits of shadow traffic (the fetch wrapper's `shadow` option): mirrors in flight and their deadline. */
  shadowLimits?: ShadowLimits;
  clock?: Clock;
  random?: () => number;
}

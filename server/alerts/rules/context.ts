import type { Config } from '../../config/schema.ts';
import type { KeyInUse } from '../../lifecycle/models-in-use.ts';
import type { Storage } from '../../storage/storage.ts';
import type { KeyAnalysis } from '../../verdicts/analyse.ts';
import type { VerdictThresholds } from '../../verdicts/figures.ts';
import type { Condition } from '../types.ts';

/** What every rule reads: the time, the storage's rollup and event reads, and key analyses per window. */
export interface RuleContext {
  now: number;
  storage: Pick<Storage, 'rollups' | 'events'>;
  /** Analyses of every key seen over the last `seconds`, by key id (memoised per pass). */
  analysesOver(seconds: number): Promise<Map<number, KeyAnalysis>>;
  /** The analyses over the verdict window (`alerts.verdict_window_s`). */
  verdictAnalyses(): Promise<Map<number, KeyAnalysis>>;
  /** Keys called over `[from, now)` whose model has a retirement calendar entry, with it (docs/lifecycle.md). */
  keysInUse(from: number): Promise<KeyInUse[]>;
  /** The verdict thresholds: a minute's sums are judged degraded by them for a data onset (absent: rules give no onset). */
  thresholds?: VerdictThresholds;
}

/** The rules section of the configuration. */
export type RulesConfig = Config['alerts']['rules'];

/** A rule: looks at the data and says, per target, fire / hold / clear. */
export type Rule<C> = (ctx: RuleContext, config: C) => Promise<Condition[]>;

/** fire at or above `fire`, clear below `resolve`, hold in between. */
export function hysteresis(value: number | null, fire: number, resolve: number): Condition['status'] {
  if (value === null) return 'clear';
  if (value >= fire) return 'fire';
  if (value < resolve) return 'clear';
  return 'hold';
}

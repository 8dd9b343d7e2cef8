import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';

/** One side of a shadow pair's answers, summed over a span (histograms on the rollup bounds). */
export interface ShadowSideSums {
  ok: number;
  errors: Partial<Record<ErrorClass, number>>;
  refusals: number;
  /** null when no window of the span checked JSON. */
  json: { checked: number; valid: number } | null;
  /** null when no window of the span carried validator results. */
  validation: { checked: number; passed: number } | null;
  /** Latency counts on the rollup bounds (`ROLLUP_BOUNDS`, one overflow bucket). */
  latency: number[];
  /** TTFT counts on the rollup bounds; all zero when nothing streamed. */
  ttft: number[];
  outputTokens: number;
  costUsd: number;
}

/** A primary -> candidate pair's shadow windows summed over a span. */
export interface ShadowPairSums {
  /** The primary key's id. */
  keyId: number;
  candidate: BreakerKey;
  pairs: number;
  dropped: number;
  /** Services whose instances mirrored this pair, by name. */
  services: string[];
  /** End of the latest window summed. */
  lastEnd: number;
  primary: ShadowSideSums;
  shadow: ShadowSideSums;
}

/** Reads of the stored shadow windows (kept `retention.rollup_days`). */
export interface ShadowPart {
  /** Every pair with windows ending in `[from, to)`, one primary key only when `keyId` is given; unordered. */
  pairs(from: number, to: number, keyId?: number): Promise<ShadowPairSums[]>;
}

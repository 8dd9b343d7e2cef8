/**
 * What each drill passes at (docs/drills.md, "What each drill checks"). Fixed, not settings:
 * a drill is a rehearsal of what production needs, and its bar is the same for every team.
 */
export const DRILL_THRESHOLDS = {
  /** rate_limit: attempts per call across the chain (the SDK's retries plus failovers), the retry budget. */
  maxAttemptsPerCall: 3,
  /** rate_limit: attempts per call that met the 429 (backoff honoured: the limited key is tried at most once more, not hammered). */
  maxRateLimitedPerCall: 2,
  /** slow_first_byte: the breaker opens on slow calls within this many seconds of the drill's start. */
  maxSecondsToOpen: 30,
  /** truncated: share of the drilled key's answered attempts counted as `truncated` (the rest were taken for successes). */
  minTruncatedShare: 0.9,
  /** auth_revoked: attempts per call that met the 401/403 (1 = no retry loop). */
  maxAuthAttemptsPerCall: 1,
} as const;

/**
 * Shadow traffic options (issue 28): which model a share of each primary model's requests
 * is mirrored to, and the limits every mirror runs under. Checked at construction by
 * `options/validate-options.ts`.
 */

/**
 * The candidate a model's requests are mirrored to. Unset fields are the primary's: the
 * same provider, base URL, key and region, so `{ model: 'gpt-4.1', share: 0.05 }` mirrors
 * 5 % of the requests to another model at the same provider. Bodies are not translated: the
 * candidate must speak the primary's endpoint (`endpoint` only names it, for the comparison).
 */
export interface ShadowTarget {
  /** The candidate model id. */
  model: string;
  /** Share (0–1) of the primary's eligible requests mirrored. */
  share: number;
  /** Provider name of the candidate (default: the primary's, or from `baseURL`'s host). */
  provider?: string;
  /** Base URL of the candidate, up to where the endpoint path starts (another provider). */
  baseURL?: string;
  /** The candidate's key, when it is another account or provider. */
  apiKey?: string;
  /** Region of the candidate. */
  region?: string;
  /** Endpoint family of the candidate; must be the primary's (bodies are not translated). */
  endpoint?: string;
}

/** Limits every mirror runs under (one set per SDK instance: `createBreakerbox({ shadowLimits })`). */
export interface ShadowLimits {
  /** Mirrors in flight at most; a mirror picked while they are all busy is dropped, never queued (default 4). */
  maxConcurrent?: number;
  /** A mirror's own deadline, ms: past it the candidate's answer counts as a `timeout` (default 30 000). */
  timeoutMs?: number;
}

/** Defaults of `ShadowLimits`. */
export const DEFAULT_SHADOW_LIMITS: Required<ShadowLimits> = { maxConcurrent: 4, timeoutMs: 30_000 };

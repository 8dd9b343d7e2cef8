/**
 * The prober's configuration after validation: every default resolved once, every
 * duration in milliseconds. Built only by `validateConfig`.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import type { ScheduleSpec } from './schedule-spec.ts';
import type { Canary } from './canary-config.ts';

/** A target's timeouts, in ms. */
export interface ProbeTimeouts {
  /** DNS + TCP + TLS. */
  connectMs: number;
  /** Until the response headers (first token when streamed). */
  firstByteMs: number;
  /** The whole probe, body included. */
  totalMs: number;
}

/** USD per million tokens. */
export interface Price {
  inputPerMtok: number;
  outputPerMtok: number;
}

/** One thing to probe. */
export interface TargetConfig {
  /** Unique name (given, or derived from key and location). */
  name: string;
  /** Position in the file's `targets` list, for messages. */
  index: number;
  key: BreakerKey;
  kind: string;
  baseUrl: URL;
  /** The name of the environment variable holding the key; never the key itself. */
  apiKeyEnv: string | undefined;
  /** The kind's resolved request block (its adapter's type). */
  request: unknown;
  streamed: boolean;
  schedule: ScheduleSpec;
  /** This target's stable offset after each scheduled slot, in ms. */
  jitterOffsetMs: number;
  jitterMs: number;
  latencyCeilingMs: number;
  timeouts: ProbeTimeouts;
  location: string;
  price: Price | undefined;
  /** Send an unreported-in-verdicts warm-up request when idle this long (ms). */
  warmupAfterIdleMs: number | undefined;
  /** What a correct answer is (issue 39); a miss is a `wrong_answer` probe. */
  canary: Canary | undefined;
}

/** Where and how results are pushed. */
export interface CollectorConfig {
  /** From the file; the CLI's flag or environment may override it. */
  url: string | undefined;
  /** Name of the environment variable holding the ingest token. */
  tokenEnv: string;
  batchSize: number;
  flushIntervalMs: number;
  bufferCap: number;
  gzip: boolean;
}

/** Probes the collector may ask for (probe on suspicion). */
export interface OnDemandConfig {
  /** Poll the collector for requests and run them. */
  enabled: boolean;
  /** At most this many on-demand probes per hour from this location (each also counts in the daily cap). */
  maxPerHour: number;
}

/** The whole validated file. */
export interface ProberConfig {
  /** The prober's location (flag wins over the file). */
  location: string;
  timezone: string;
  maxConcurrent: number;
  dailyCostCapUsd: number | undefined;
  collector: CollectorConfig;
  onDemand: OnDemandConfig;
  targets: TargetConfig[];
}

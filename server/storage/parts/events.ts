import type { KeyScope } from './key-scope.ts';
import type { BreakerKey, BreakerStateName, ProbeOutcome } from '@breakerbox/protocol';

/** A transition of one key × source, as stored. */
export interface TransitionRow {
  keyId: number;
  sourceId: number;
  ts: number;
  toState: BreakerStateName;
}

/** A transition as key detail lists it. */
export interface TransitionListed {
  ts: number;
  service: string;
  instance: string;
  from: BreakerStateName | null;
  to: BreakerStateName;
  reason: string;
}

/** The latest config event of a key, its JSON fields parsed. */
export interface ConfigRecord {
  ts: number;
  service: string;
  instance: string;
  settings: Record<string, unknown>;
  fallbacks: unknown[];
  warnings: string[];
}

/** One raw probe event. */
export interface ProbeEventRow {
  keyId: number;
  location: string;
  ts: number;
  outcome: ProbeOutcome;
  errorClass: string | null;
  status: number | null;
  connectMs: number | null;
  ttfbMs: number | null;
  totalMs: number;
  cold: boolean;
  /** A failed probe's evidence (issue 27); null for ok probes and older probers. */
  upstreamRequestId: string | null;
  errorType: string | null;
  errorCode: string | null;
  message: string | null;
  /** A `wrong_answer`'s evidence and the served model version (issue 39); null for other probes and older probers. */
  answerExcerpt: string | null;
  modelServed: string | null;
  systemFingerprint: string | null;
}

/** A probe's or an SDK call sample's sighting of the served model version behind its key (issue 39). */
export interface ServedSighting {
  ts: number;
  /** `probe`: a probe event; `call`: an SDK call sample (failed or slow calls only; no fingerprint). */
  seenIn: 'probe' | 'call';
  /** The probe's location, or the call's `service/instance`. */
  by: string;
  modelServed: string | null;
  systemFingerprint: string | null;
}

/** One location's answer canaries for a key over a span (issue 39): its warm probes, the wrong answers among them and the latest one's evidence. */
export interface AnswerRow {
  location: string;
  /** Warm probes of the key from the location. */
  probes: number;
  /** Of them, `wrong_answer` probes. */
  wrong: number;
  /** The latest wrong answer: what the canary expected (`message`) and the answer's first characters, redacted by the prober. */
  latest: { ts: number; expected: string | null; excerpt: string | null } | null;
}

/** Reads of the raw events (kept `retention.raw_days`): transitions, probes, config. */
export interface EventsPart {
  /** Per key × source, the last transition before `before` (its state holds at `before`); one key, or the keys of a list, when given. Unordered. */
  stateBefore(before: number, keyId?: KeyScope): Promise<TransitionRow[]>;
  /** Transitions in `[from, to)`, ordered by key, source, time, insertion; one key, or the keys of a list, when given. */
  transitionsIn(from: number, to: number, keyId?: KeyScope): Promise<TransitionRow[]>;
  /** The last minute before `before` in which a source reported a key (windows or transitions), or null. */
  lastReportMinute(keyId: number, sourceId: number, before: number): Promise<number | null>;
  /** One key's transitions in `[from, to)` with service and instance names, newest first, at most `limit`. */
  keyTransitions(keyId: number, from: number, to: number, limit: number): Promise<TransitionListed[]>;
  /**
   * Flaps per key × source in `[from, to]`: transitions into open from closed (an open that
   * follows a close), with the instance name and key. Re-opens from half-open during one
   * continuous outage are not counted (issue 23).
   */
  opensPerInstance(from: number, to: number): Promise<{ keyId: number; key: BreakerKey; instance: string; opens: number }[]>;
  /** The latest config event of a key, or null. */
  latestConfig(keyId: number): Promise<ConfigRecord | null>;
  /** Per key, whether its latest config event lists fallbacks (keys without a config event absent). */
  hasFallbacks(): Promise<Map<number, boolean>>;
  /** Probe events in `[from, to)`, ordered by key, location, then newest first. */
  probeEvents(from: number, to: number): Promise<ProbeEventRow[]>;
  /** The latest warm probe of a key from a location at or before `at`, with the key's labels; null when none. */
  lastWarmProbe(keyId: number, location: string, at: number): Promise<{ key: BreakerKey; outcome: string; errorClass: string | null; status: number | null } | null>;
  /** Outcomes of one key × location's warm probes with ts in `[from, to)` and at or before `at`, newest first. */
  warmOutcomes(keyId: number, location: string, from: number, to: number, at: number): Promise<string[]>;
  /** Failed warm probes per location in `[from, to)`, and how many of them were network or timeout. */
  probeFailureClasses(from: number, to: number): Promise<Map<string, { failed: number; network: number }>>;
  /**
   * One key's probes and call samples in `[from, to)` that named a served model version
   * (`model_served`, a probe's `system_fingerprint`), oldest first by event time (a probe before
   * a call at the same time, then insertion): the input of served-model changes
   * (server/verdicts/served-changes.ts).
   */
  servedSightings(keyId: number, from: number, to: number): Promise<ServedSighting[]>;
  /**
   * The served version in force for a key at `before`: the last `model_served` and the last
   * `system_fingerprint` its sightings in `[since, before)` named (each null when none did), in
   * `servedSightings`' order. Two index lookups, not a read of every sighting.
   */
  servedBefore(keyId: number, before: number, since: number): Promise<{ modelServed: string | null; systemFingerprint: string | null }>;
  /**
   * One key's answer canaries in `[from, to)` per location (warm probes only), locations in
   * binary order: what the wrong-answer rule reads (server/verdicts/wrong-answers.ts).
   */
  answerRows(keyId: number, from: number, to: number): Promise<AnswerRow[]>;
  /**
   * Every key's sightings with event time in `[from, to)`, by key id, then in
   * `servedSightings`' order: what the /metrics served-change counter reads each scrape, only
   * the span since the previous one (server/metrics/served-change-counter.ts).
   */
  servedSightingsIn(from: number, to: number): Promise<(ServedSighting & { keyId: number })[]>;
}

/**
 * Per-key aggregation for one telemetry interval: the counters of a protocol v1 `window`
 * event. Recording is a handful of additions; nothing is allocated per call.
 */
import type { BreakerKey, CallSample, DeprecationSignal, ErrorClass, Histogram, WindowDeprecationSignal, WindowEvent } from '@breakerbox/protocol';
import { KeySamples, type SampleLimits } from './key-samples.ts';
import { ERROR_CLASSES, countsAgainstProvider } from '@breakerbox/protocol';

/**
 * Provider-side failed attempts that make a window's failure onset: the window is reported
 * at once instead of at the end of its interval (docs/fleet.md, "How early"), so the
 * collector's probe on suspicion — and a fleet decision — need not wait up to 10 s for it.
 */
export const ONSET_FAILURES = 2;

const CLASS_INDEX: Record<ErrorClass, number> = Object.fromEntries(ERROR_CLASSES.map((c, i) => [c, i])) as Record<ErrorClass, number>;

/** What a finished attempt adds to the window besides its outcome. */
export interface AttemptFacts {
  ttftMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  /** Malformed stream chunks dropped (`malformedChunks: 'skip'`). */
  skippedChunks?: number;
  /** The provider's `Deprecation` / `Sunset` headers on the answer, when it sent any. */
  deprecation?: DeprecationSignal;
}

/** The histogram bucket of `v`: the first bound at or above it, or the overflow bucket. */
export function bucketOf(bounds: readonly number[], v: number): number {
  let i = 0;
  while (i < bounds.length && v > bounds[i]!) i++;
  return i;
}

/** The window counters of one key. */
export class KeyStats {
  private calls = 0;
  private ok = 0;
  private slow = 0;
  private readonly errors: number[] = new Array<number>(ERROR_CLASSES.length).fill(0);
  private rejected = 0;
  private shortCircuited = 0;
  private retries = 0;
  private coldExcluded = 0;
  private halfOk = 0;
  private halfFailed = 0;
  private readonly latency: number[];
  private ttft: number[] | undefined;
  private inputTokens = 0;
  private outputTokens = 0;
  private costUsd = 0;
  private skippedChunks = 0;
  private exercised = 0;
  private exercisedOk = 0;
  /** The provider's deprecation headers this window: answers carrying them, and the latest dates. */
  private signal: WindowDeprecationSignal | undefined;
  private start: number;
  private readonly samples: KeySamples | undefined;
  /** Provider-side failed attempts in this window. */
  private providerFailed = 0;
  /**
   * Whether this window may still report an onset: its previous window was not failing (or
   * saw no traffic). During a lasting outage every window fails, so only the first is cut
   * early: at most one early report per key per interval.
   */
  private armed = true;

  constructor(
    private readonly key: BreakerKey,
    private readonly bounds: readonly number[],
    now: number,
    sampleLimits?: SampleLimits,
  ) {
    this.latency = new Array<number>(bounds.length + 1).fill(0);
    this.start = now;
    if (sampleLimits && sampleLimits.count > 0) this.samples = new KeySamples(sampleLimits);
  }

  /** Whether a sample of `cls` (`slow` for a slow success) at `now` would be kept: ask before building one. */
  wantsSample(cls: string, now: number): boolean {
    return this.samples !== undefined && this.samples.wants(cls, now);
  }

  /** Keeps the sample of a failed or slow attempt for this window (bounded; see `KeySamples`). */
  sample(s: CallSample): void {
    this.samples?.offer(s);
  }

  /** True when anything was recorded since the last drain. */
  get touched(): boolean {
    return this.calls + this.rejected + this.shortCircuited > 0;
  }

  /**
   * Records one attempt that was sent. Returns true when this attempt makes the window's
   * failure onset (`ONSET_FAILURES` provider-side failures after a window that was not
   * failing): the caller should report the window now.
   */
  attempt(latencyMs: number, cls: ErrorClass | null, slow: boolean, retry: boolean, cold: boolean, probe: boolean, facts?: AttemptFacts, exercised = false): boolean {
    this.calls++;
    if (exercised) {
      this.exercised++;
      if (cls === null && !slow) this.exercisedOk++;
    }
    if (cls === null) {
      if (slow) this.slow++;
      else this.ok++;
    } else {
      this.errors[CLASS_INDEX[cls]]!++;
    }
    if (retry) this.retries++;
    if (cold) this.coldExcluded++;
    if (probe) {
      if (cls === null && !slow) this.halfOk++;
      else this.halfFailed++;
    }
    this.latency[bucketOf(this.bounds, latencyMs)]!++;
    if (facts) {
      if (facts.ttftMs !== undefined) {
        this.ttft ??= new Array<number>(this.bounds.length + 1).fill(0);
        this.ttft[bucketOf(this.bounds, facts.ttftMs)]!++;
      }
      this.inputTokens += facts.inputTokens ?? 0;
      this.outputTokens += facts.outputTokens ?? 0;
      this.costUsd += facts.costUsd ?? 0;
      if (facts.skippedChunks) this.skippedChunks += facts.skippedChunks;
    }
    if (cls === null || !countsAgainstProvider(cls)) return false;
    return ++this.providerFailed === ONSET_FAILURES && this.armed;
  }

  /**
   * Records the provider's `Deprecation` / `Sunset` headers on one answer (a success's or a
   * failure's): the latest answer's dates are the window's.
   */
  deprecation(s: DeprecationSignal): void {
    const w: WindowDeprecationSignal = { responses: (this.signal?.responses ?? 0) + 1 };
    if (s.deprecationAt !== undefined) w.deprecation_at = s.deprecationAt;
    if (s.sunsetAt !== undefined) w.sunset_at = s.sunsetAt;
    this.signal = w;
  }

  /** Records a call refused by the bulkhead. */
  rejection(): void {
    this.rejected++;
  }

  /** Records a call refused because the breaker was open or its probe slots were taken. */
  shortCircuit(): void {
    this.shortCircuited++;
  }

  /** Returns the window since the last drain (or undefined if it saw no traffic) and starts a new one at `now`. */
  drain(now: number): WindowEvent | undefined {
    this.armed = this.providerFailed < ONSET_FAILURES;
    this.providerFailed = 0;
    if (!this.touched) {
      this.samples?.drain();
      this.start = now;
      return undefined;
    }
    const errors: Partial<Record<ErrorClass, number>> = {};
    for (let i = 0; i < ERROR_CLASSES.length; i++) if (this.errors[i]) errors[ERROR_CLASSES[i]!] = this.errors[i]!;
    const ev: WindowEvent = {
      type: 'window',
      start: this.start,
      end: now,
      key: this.key,
      calls: this.calls,
      ok: this.ok,
      slow: this.slow,
      errors,
      rejected: this.rejected,
      short_circuited: this.shortCircuited,
      retries: this.retries,
      cold_excluded: this.coldExcluded,
      half_open: { ok: this.halfOk, failed: this.halfFailed },
      latency_ms: histogram(this.bounds, this.latency),
      input_tokens: this.inputTokens,
      output_tokens: this.outputTokens,
      cost_usd: round6(this.costUsd),
    };
    if (this.ttft) ev.ttft_ms = histogram(this.bounds, this.ttft);
    // Optional v1 fields, sent only when non-zero so older collectors see the same events.
    if (this.skippedChunks) ev.skipped_chunks = this.skippedChunks;
    if (this.exercised) ev.exercised = { calls: this.exercised, ok: this.exercisedOk };
    const samples = this.samples?.drain();
    if (samples) ev.samples = samples;
    if (this.signal) ev.deprecation_signal = this.signal;
    this.reset(now);
    return ev;
  }

  private reset(now: number): void {
    this.calls = this.ok = this.slow = this.rejected = this.shortCircuited = this.retries = this.coldExcluded = 0;
    this.halfOk = this.halfFailed = this.inputTokens = this.outputTokens = this.costUsd = 0;
    this.skippedChunks = this.exercised = this.exercisedOk = 0;
    this.errors.fill(0);
    this.latency.fill(0);
    this.ttft = undefined;
    this.signal = undefined;
    this.start = now;
  }
}

function histogram(bounds: readonly number[], counts: number[]): Histogram {
  return { bounds: [...bounds], counts: [...counts] };
}

/** Rounds money to a millionth of a dollar, so sums stay readable on the wire. */
export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

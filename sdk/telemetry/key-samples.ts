/**
 * The samples of one key's current window: a bounded set of failed and slow attempts. When
 * full, a new sample always enters and the oldest sample of the most represented class
 * leaves, so the window keeps the most recent attempts of the most varied classes (a burst
 * of 503s does not push out the one timeout). Count and bytes are both capped, so memory
 * stays bounded whatever the host's traffic does; and while full, a class already kept is
 * refreshed at most once a second, so a failure storm costs little CPU too.
 */
import type { CallSample } from '@breakerbox/protocol';

/** Limits of one key's samples per window. */
export interface SampleLimits {
  /** Samples kept per key per window (0: sampling off). */
  count: number;
  /** Bytes of JSON the samples of one window may take. */
  bytes: number;
}

/** The sampling options under `telemetry` of `createBreakerbox`. */
export interface SampleOptions {
  /** Failed and slow attempts kept per key per window as evidence (default 5; 0 turns sampling off; at most 10). */
  samplesPerWindow?: number;
  /** Bytes of JSON those samples may take per key per window (default 4 096; 512 to 8 192). */
  sampleBytesPerWindow?: number;
}

/** Default samples per key per window. */
export const DEFAULT_SAMPLES_PER_WINDOW = 5;
/** Default bytes of samples per key per window. */
export const DEFAULT_SAMPLE_BYTES_PER_WINDOW = 4_096;

/** The limits of `options` (no collector: none kept). */
export function sampleLimitsOf(options: SampleOptions | undefined): SampleLimits {
  if (!options) return { count: 0, bytes: 0 };
  return { count: options.samplesPerWindow ?? DEFAULT_SAMPLES_PER_WINDOW, bytes: options.sampleBytesPerWindow ?? DEFAULT_SAMPLE_BYTES_PER_WINDOW };
}

const classOf = (s: CallSample): string => s.error_class ?? 'slow';

/**
 * While a key's samples are full, a failure of a class already kept replaces one at most this
 * often: a storm of identical failures then costs one sample build a second, not one a call.
 */
export const SAMPLE_REFRESH_MS = 1_000;

/** See the module comment. */
export class KeySamples {
  private kept: CallSample[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  private lastKept = -Infinity;

  constructor(private readonly limits: SampleLimits) {}

  /** Number of samples held now. */
  get size(): number {
    return this.kept.length;
  }

  /**
   * Whether a sample of `cls` (`slow` for a slow success) ending at `now` would be worth
   * building: room left, a class not kept yet, or the refresh interval passed. Cheap: no
   * allocation, at most `count` comparisons.
   */
  wants(cls: string, now: number): boolean {
    if (this.limits.count <= 0) return false;
    if (this.kept.length < this.limits.count || now - this.lastKept >= SAMPLE_REFRESH_MS) return true;
    for (const s of this.kept) if (classOf(s) === cls) return false;
    return true;
  }

  /** Keeps `sample`, evicting as the module comment says; a sample larger than the byte cap alone is dropped. */
  offer(sample: CallSample): void {
    const size = Buffer.byteLength(JSON.stringify(sample)) + 1;
    if (size > this.limits.bytes || this.limits.count <= 0) return;
    this.kept.push(sample);
    this.lastKept = sample.ts;
    this.sizes.push(size);
    this.bytes += size;
    while (this.kept.length > this.limits.count || this.bytes + 2 > this.limits.bytes) this.evict();
  }

  /** The samples in time order (undefined when none), and an empty set for the next window. */
  drain(): CallSample[] | undefined {
    if (this.kept.length === 0) return undefined;
    const out = this.kept;
    this.kept = [];
    this.sizes = [];
    this.bytes = 0;
    return out;
  }

  /** Drops the oldest sample of the most represented class (ties: the class whose oldest is oldest). */
  private evict(): void {
    const counts = new Map<string, number>();
    for (const s of this.kept) counts.set(classOf(s), (counts.get(classOf(s)) ?? 0) + 1);
    let most = 0;
    for (const n of counts.values()) if (n > most) most = n;
    // `kept` is in arrival order: the first sample of a most represented class is the victim.
    const at = this.kept.findIndex((s) => counts.get(classOf(s)) === most);
    this.bytes -= this.sizes[at]!;
    this.kept.splice(at, 1);
    this.sizes.splice(at, 1);
  }
}

import type { CallSample } from '@breakerbox/protocol';

/** One stored evidence sample, with the service and instance that sent it. */
export interface StoredSample {
  ts: number;
  service: string;
  instance: string;
  sample: CallSample;
}

/** What a samples read asks for. */
export interface SampleQuery {
  /** Samples with ts in `[from, to)`. */
  from: number;
  to: number;
  /** At most this many, newest first. */
  limit: number;
  /** Only this error class (`slow` for slow successes). */
  errorClass?: string;
  /** Only from this service. */
  service?: string;
  /** Only from this instance (a pod, a location). */
  instance?: string;
}

/** Reads of the evidence samples (kept `retention.raw_days`, like the raw events they came with). */
export interface SamplesPart {
  /** One key's samples matching `q`, newest first. */
  forKey(keyId: number, q: SampleQuery): Promise<StoredSample[]>;
  /**
   * The latest `perKey` failed samples (no slow successes) of each of `keyIds` with ts in
   * `[from, to)`, newest first, in one query; keys without any are absent from the map.
   */
  latestFailed(keyIds: readonly number[], from: number, to: number, perKey: number): Promise<Map<number, StoredSample[]>>;
}

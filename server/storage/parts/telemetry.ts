import type { BreakerKey, TelemetryAck, TelemetryBatch } from '@breakerbox/protocol';
import type { PassthroughRow } from '../passthrough-rows.ts';

export type { PassthroughRow };

/** A stored key with its id and the span it reported over. */
export interface KeyInfo {
  id: number;
  key: BreakerKey;
  firstSeen: number;
  lastSeen: number;
}

/** A reporting instance as stored. */
export interface SourceInfo {
  id: number;
  serviceId: number;
  service: string;
  instance: string;
  sdk: string | null;
  lastSeen: number;
}

/**
 * A key's latest deprecation signal from its provider (RFC 9745 `Deprecation`, RFC 8594
 * `Sunset` on its answers, as the SDK reported them): dates in ms, null when the latest
 * answers did not carry that header.
 */
export interface ProviderSignal {
  deprecationAt: number | null;
  sunsetAt: number | null;
  /** Answers that carried a signal, over every window since `firstSeen`. */
  responses: number;
  firstSeen: number;
  lastSeen: number;
}

/** Ingest writes and the names behind the ids every other read carries. */
export interface TelemetryPart {
  /**
   * Stores one validated batch in one transaction (events, per-minute rollups, all-time
   * totals, the batch id). A `batch_id` already stored changes nothing and answers
   * `{accepted: 0, duplicate: true}`. Resolves once the write is durable; rejects with the
   * engine's error when it failed (ask `health.writeFailed` what it means).
   */
  insertBatch(batch: TelemetryBatch, receivedAt: number): Promise<TelemetryAck>;
  /** Stores several validated batches in one transaction, all of them or none; one ack per batch, in order. */
  insertBatches(batches: TelemetryBatch[], receivedAt: number): Promise<TelemetryAck[]>;
  /** The id of a key, or undefined if it never reported (answered from memory for known keys). */
  findKeyId(key: BreakerKey): Promise<number | undefined>;
  /** The ids of those of `keys` that have reported before, by the same index: undefined for new ones. One round trip. */
  findKeyIds(keys: readonly BreakerKey[]): Promise<(number | undefined)[]>;
  /** Every key that ever reported, ordered by provider, endpoint, model, region. */
  listKeys(): Promise<KeyInfo[]>;
  /** Every key by id (same rows as `listKeys`, in the same order). */
  keys(): Promise<Map<number, KeyInfo>>;
  /** Every reporting instance by source id (unordered). */
  sources(): Promise<Map<number, SourceInfo>>;
  /** Service names by service id (unordered). */
  services(): Promise<Map<number, string>>;
  /** Every key's latest provider deprecation signal, by key id (only keys that ever carried one). */
  providerSignals(): Promise<Map<number, ProviderSignal>>;
  /**
   * Requests forwarded unprotected (batches' `passthrough`) per service, host, path family and
   * method that arrived in minutes `[from, to)`, largest first, at most `MAX_PASSTHROUGH_ROWS`.
   */
  passthrough(from: number, to: number): Promise<PassthroughRow[]>;
}

import type { TelemetryAck, TelemetryBatch } from '@breakerbox/protocol';

/** How long and how much a group may gather before it is written. */
export interface GroupCommitLimits {
  /** Most batches written in one transaction. */
  maxBatches: number;
  /** Most events written in one transaction (a group closes once it holds this many). */
  maxEvents: number;
  /** Longest a queued batch waits for bodies still streaming in, in ms. */
  maxWaitMs: number;
}

/** Defaults: a handful of 1,000-event batches, never more than a few ms of waiting. */
export const GROUP_COMMIT_LIMITS: GroupCommitLimits = { maxBatches: 8, maxEvents: 20_000, maxWaitMs: 5 };

/**
 * Writes a group of batches in one transaction and returns one ack per batch, in order;
 * throws when the transaction rolled back (none of them is stored then).
 */
export type GroupWrite = (batches: TelemetryBatch[], now: number) => TelemetryAck[];

/** Group commit for ingest: validated batches queue here and are written together. */
export interface GroupCommit {
  /**
   * Queues a validated batch. Resolves with its ack once the transaction holding it has
   * committed (durably: the ack guarantee is unchanged), rejects with the write's error.
   */
  write(batch: TelemetryBatch, now: number): Promise<TelemetryAck>;
  /** A request body started streaming in: a group waits for it (up to `maxWaitMs`). */
  bodyStarted(): void;
  /** That body is complete (parsed) or refused. */
  bodyEnded(): void;
}

interface Queued {
  batch: TelemetryBatch;
  now: number;
  resolve(ack: TelemetryAck): void;
  reject(err: unknown): void;
}

/**
 * Creates the group commit. Each transaction's cost is mostly per rollup row and per
 * commit, not per batch: batches that arrive together share one commit and upsert each
 * (key, minute) row once. A queued batch is written as soon as no other ingest body is
 * still arriving (so one sender alone waits for nothing), or when the group is full, or
 * after `maxWaitMs`. If a group fails, its batches are retried one by one, so one batch's
 * fault is answered to its sender alone; `isFinal` errors (the storage is down) are not
 * retried, since each retry would only meet them again.
 */
export function createGroupCommit(write: GroupWrite, options: { limits?: GroupCommitLimits; isFinal?: (err: unknown) => boolean } = {}): GroupCommit {
  const limits = options.limits ?? GROUP_COMMIT_LIMITS;
  const isFinal = options.isFinal ?? (() => false);
  let queue: Queued[] = [];
  let events = 0;
  let receiving = 0;
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;

  const settle = (group: Queued[]) => {
    const now = Math.max(...group.map((q) => q.now));
    let acks: TelemetryAck[];
    try {
      acks = write(group.map((q) => q.batch), now);
    } catch (err) {
      if (group.length === 1 || isFinal(err)) {
        for (const q of group) q.reject(err);
        return;
      }
      for (const q of group) settle([q]);
      return;
    }
    group.forEach((q, i) => q.resolve(acks[i]!));
  };

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const group = queue;
    queue = [];
    events = 0;
    if (group.length > 0) settle(group);
  };

  const full = () => queue.length >= limits.maxBatches || events >= limits.maxEvents;

  // Runs after the current I/O phase: handlers of bodies completed in it have queued by then.
  const check = () => {
    scheduled = false;
    if (queue.length === 0) return;
    if (receiving === 0 || full()) return flush();
    timer ??= setTimeout(flush, limits.maxWaitMs);
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(check);
  };

  return {
    write(batch, now) {
      return new Promise<TelemetryAck>((resolve, reject) => {
        queue.push({ batch, now, resolve, reject });
        events += batch.events.length;
        schedule();
      });
    },
    bodyStarted() {
      receiving++;
    },
    bodyEnded() {
      receiving--;
      if (receiving === 0 && queue.length > 0) schedule();
    },
  };
}

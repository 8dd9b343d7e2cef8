import type { TelemetryAck, TelemetryBatch } from '@breakerbox/protocol';

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
}

interface Queued {
  batch: TelemetryBatch;
  now: number;
  resolve(ack: TelemetryAck): void;
  reject(err: unknown): void;
}

/** Most batches written in one transaction, so one group's write stays short. */
export const MAX_GROUP_BATCHES = 8;

/**
 * Creates the group commit. A transaction's cost is mostly per rollup row and per commit,
 * not per batch, so the batches whose bodies completed in the same turn of the event loop
 * (many senders at once, or a backlog behind a long write) share one commit and upsert
 * each (key, minute) row once. Nothing waits for more to arrive: the write runs right
 * after the I/O phase that queued the first batch, so a lone sender sees no delay.
 * If a group fails, its batches are retried one by one, so one batch's fault is answered
 * to its sender alone; `isFinal` errors (the storage is down) are not retried, since each
 * retry would only meet them again.
 */
export function createGroupCommit(write: GroupWrite, options: { isFinal?: (err: unknown) => boolean } = {}): GroupCommit {
  const isFinal = options.isFinal ?? (() => false);
  const queue: Queued[] = [];
  let scheduled = false;

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

  // After the current I/O phase: the handlers of every body completed in it have queued by then.
  const flush = () => {
    scheduled = false;
    while (queue.length > 0) settle(queue.splice(0, MAX_GROUP_BATCHES));
  };

  return {
    write(batch, now) {
      return new Promise<TelemetryAck>((resolve, reject) => {
        queue.push({ batch, now, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}

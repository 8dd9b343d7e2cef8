/**
 * What a collector sends its feeds about drills, read from the database so a follower on
 * PostgreSQL delivers a run started through another collector: every poll it reads the
 * runs started or stopped in the last `freshMs` and sends each change once. A run is sent
 * only while fresh — an instance that subscribes mid-run is not sent it (its steps, timed
 * from receipt, would no longer line up with the others'; docs/drills.md).
 */
import type { DrillCommand } from '@breakerbox/protocol';
import type { DrillsPart } from '../storage/storage.ts';
import { commandOf } from './drill-service.ts';

/** The drill side of one collector's feeds. */
export interface DrillFeed {
  /** Sends new starts and stops; resolves to how many feeds were written to. */
  poll(now: number): Promise<number>;
}

/** Creates the feed source over the drills part; `send` writes one command to this collector's feeds of its service. */
export function createDrillFeed(store: Pick<DrillsPart, 'changedSince'>, send: (c: DrillCommand) => number, o: { freshMs: number }): DrillFeed {
  // The changes sent, by run id: only runs changed within freshMs, replaced each poll.
  let sent = new Map<string, number>();
  return {
    async poll(now) {
      const rows = await store.changedSince(now - o.freshMs);
      const next = new Map<string, number>();
      let n = 0;
      for (const r of rows) {
        next.set(r.id, r.updatedAt);
        if (sent.get(r.id) === r.updatedAt) continue;
        // A start whose run has ended meanwhile is not sent; a stop always is.
        if (r.stoppedAt === null && r.endsAt <= now) continue;
        n += send(commandOf(r));
      }
      sent = next;
      return n;
    },
  };
}

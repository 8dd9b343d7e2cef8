import type pg from 'pg';
import type { ServerClock } from '../../clock.ts';
import type { LeaderLease } from '../parts/lease.ts';
import { connectClient } from './pool.ts';

/** Advisory lock key of the leader lease (a fixed 64-bit number; this one spells "bbx-lead"). */
export const LEADER_LOCK_KEY = 0x6262782d6c656164n;

/** Timing of the lease; defaults resolved once in `createLeaderLease`. */
export interface LeaderLeaseOptions {
  /** How often the holder confirms its session and a follower tries to take over (default 2 s). */
  renewMs?: number;
  /**
   * How long after its last confirmed renewal the holder still acts as leader (default 8 s).
   * Kept below the server's dead-peer time (`keepalive`), so a holder cut off from the
   * database has stepped down before the server frees the lock for another.
   */
  holdMs?: number;
  /** Server-side TCP keepalive of the lease session, in s: idle, interval, count (default 5, 2, 3: a vanished holder is dropped after ≤ 11 s). */
  keepalive?: { idleS: number; intervalS: number; count: number };
  /** Called with connection errors of the lease session (it then steps down and reconnects at the next tick). */
  onError?: (err: Error) => void;
}

/**
 * The leader lease on PostgreSQL: `pg_try_advisory_lock` on a session of its own. The lock
 * lives exactly as long as that session, so a holder killed with -9 loses it the moment
 * the kernel closes its socket and a follower takes over at its next tick (≤ `renewMs`); a
 * holder whose host vanished is dropped by the server's TCP keepalive, set per session,
 * within `idleS + intervalS × count`; a holder that hangs with its connection open is dropped
 * by the server once its session has been idle for `holdMs` (`idle_session_timeout`). No
 * lease table, no writes while nothing changes.
 *
 * The holder confirms its session every `renewMs` (`SELECT 1`); a failed or hung
 * confirmation makes it step down, and `isHeld()` turns false by itself `holdMs` after the
 * last confirmed one, even if no tick runs (a blocked event loop).
 */
export function createLeaderLease(url: string, clock: ServerClock, options: LeaderLeaseOptions = {}): LeaderLease {
  const renewMs = options.renewMs ?? 2000;
  const holdMs = options.holdMs ?? 8000;
  const keepalive = options.keepalive ?? { idleS: 5, intervalS: 2, count: 3 };
  // Never shorter than the hold time (the old holder must have stopped first), and long enough for a live holder's ticks.
  const idleTimeoutMs = Math.max(holdMs, 2 * renewMs);
  const listeners = new Set<(held: boolean) => void>();
  let client: pg.Client | null = null;
  let holding = false;
  let confirmedAt = 0;
  let lastReported = false;
  let inFlight: Promise<boolean> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const isHeld = () => holding && clock.now() < confirmedAt + holdMs;
  const report = () => {
    const now = isHeld();
    if (now === lastReported) return;
    lastReported = now;
    for (const l of listeners) l(now);
  };
  const drop = (c: pg.Client | null) => {
    if (c && c === client) {
      client = null;
      holding = false;
      // Ending the session is what frees the lock if the server still thinks it is ours.
      c.end().catch(() => undefined);
    }
    report();
  };

  const connect = async (): Promise<pg.Client> => {
    const c = await connectClient(url, {
      queryTimeoutMs: holdMs,
      onError: (err) => {
        options.onError?.(err);
        drop(c);
      },
    });
    c.on('end', () => drop(c));
    await c.query(`SET tcp_keepalives_idle = ${keepalive.idleS}; SET tcp_keepalives_interval = ${keepalive.intervalS}; SET tcp_keepalives_count = ${keepalive.count}`);
    // A holder that hangs (a stopped process, a blocked event loop) keeps its socket open and its
    // kernel answers keepalives: the server ends the session once it has sent nothing for the
    // hold time, when the holder has stopped acting by its own clock (PostgreSQL 14+; older
    // servers keep the lock until the process dies).
    await c.query(`SELECT set_config('idle_session_timeout', $1, false) WHERE current_setting('server_version_num')::int >= 140000`, [String(idleTimeoutMs)]);
    return c;
  };

  const attempt = async (): Promise<boolean> => {
    if (closed) return false;
    const startedAt = clock.now();
    let c = client;
    try {
      if (!c) {
        c = await connect();
        if (closed) {
          await c.end();
          return false;
        }
        client = c;
      }
      if (holding) {
        await c.query('SELECT 1');
      } else {
        const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY.toString()]);
        holding = rows[0]!.ok;
      }
      // Measured from before the round trip: the holder's deadline never runs past the server's view.
      if (holding) confirmedAt = startedAt;
    } catch (err) {
      options.onError?.(err as Error);
      drop(c);
    }
    report();
    return isHeld();
  };

  const tick = () => {
    inFlight ??= attempt().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  return {
    isHeld,
    tick,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      if (timer || closed) return;
      void tick();
      timer = setInterval(() => {
        void tick();
        report();
      }, renewMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      await inFlight?.catch(() => undefined);
      const c = client;
      client = null;
      holding = false;
      report();
      if (c) await c.end().catch(() => undefined);
    },
  };
}

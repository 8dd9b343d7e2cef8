import type { HealthPart, StorageFault, StorageFaultKind } from '../parts/health.ts';
import { postgresMigrationsUpToDate } from './migrations.ts';
import type { PgPool } from './pool.ts';

/** Node socket errors that mean the server cannot be reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/**
 * What a failed PostgreSQL statement says about the storage: the server unreachable or
 * shutting down (SQLSTATE class 08, 57P01-57P03, too many connections), out of disk (53100)
 * or an I/O error (58030) are faults ingest answers with 503 + Retry-After; anything else
 * (a constraint, a syntax error) is a bug and gives null.
 */
export function classifyPostgresError(err: unknown): { kind: StorageFaultKind; reason: string } | null {
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? '';
  const message = e?.message ?? String(err);
  if (code === '53100') return { kind: 'disk_full', reason: `PostgreSQL is out of disk space (${message}); free space on the database server` };
  if (code === '58030') return { kind: 'io_error', reason: `PostgreSQL reports an I/O error (${message}); check the database server's disk` };
  if (NETWORK_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)
    || /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(message)) {
    return { kind: 'unreachable', reason: `PostgreSQL cannot be reached (${code || message}); check that the server is up and BREAKERBOX_DB points at it` };
  }
  return null;
}

/** The fault watch of the PostgreSQL engine: the pool's connection is what can fail. */
export function createPostgresHealth(pool: PgPool, options: { retryAfterS: number; onFault?: (fault: StorageFault | null, previous: StorageFault | null) => void }): HealthPart {
  let fault: StorageFault | null = null;
  let nextTrial = 0;
  const set = (next: StorageFault | null) => {
    const previous = fault;
    fault = next;
    if ((previous === null) !== (next === null) || previous?.kind !== next?.kind) options.onFault?.(next, previous);
  };
  const check = async (now: number) => {
    try {
      await pool.query('SELECT 1');
      if (fault?.kind === 'unreachable') set(null);
    } catch (err) {
      const found = classifyPostgresError(err) ?? { kind: 'unreachable' as const, reason: `PostgreSQL does not answer: ${(err as Error).message}` };
      if (fault?.kind !== found.kind) set({ ...found, since: now });
    }
    return fault;
  };
  return {
    check,
    async admit(now) {
      if (!fault) return 0;
      // One write per retry period finds out whether the server is back.
      if (now < nextTrial) return options.retryAfterS;
      nextTrial = now + options.retryAfterS * 1000;
      return 0;
    },
    async writeFailed(err, now) {
      const found = classifyPostgresError(err);
      if (!found) return null;
      if (fault?.kind !== found.kind) set({ ...found, since: now });
      nextTrial = now + options.retryAfterS * 1000;
      return fault;
    },
    async writeSucceeded() {
      if (fault) set(null);
    },
    async notReadyReason(now) {
      const current = await check(now);
      if (current) return current.reason;
      return (await postgresMigrationsUpToDate(pool)) ? null : 'PostgreSQL migrations are not all applied';
    },
  };
}

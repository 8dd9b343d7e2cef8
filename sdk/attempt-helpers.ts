/**
 * Small helpers of the key policy: refusal errors, attempt records, and the marker that
 * tells `execute` an attempt's outcome was already recorded.
 */
import type { BreakerKey, ErrorClass } from '@breakerbox/protocol';
import type { AttemptRecord, CallFacts } from './call-types.ts';
import { BreakerboxError, type SdkErrorCode } from './errors/catalog.ts';

/** Builds refusal errors without a stack trace: they are frequent while a breaker is open. */
export function refusal(code: SdkErrorCode, message: string): BreakerboxError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new BreakerboxError(code, message, { errorClass: 'server' });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Marks an error whose attempt was already recorded, so `execute` does not record it twice. */
const SETTLED = Symbol('breakerbox.settled');

/** See the module comment. */
export function attemptRecord(key: BreakerKey, attempt: number, durationMs: number, cls: ErrorClass | undefined, err: unknown, costUsd: number): AttemptRecord {
  const r: AttemptRecord = { key, level: 0, attempt, ok: cls === undefined, durationMs, costUsd };
  if (cls) r.errorClass = cls;
  if (err instanceof BreakerboxError) r.errorCode = err.code;
  return r;
}

/** See the module comment. */
export function isSettled(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { [SETTLED]?: boolean })[SETTLED] === true;
}

/** See the module comment. */
export function markSettled(err: unknown): unknown {
  if (err && typeof err === 'object') {
    try {
      Object.defineProperty(err, SETTLED, { value: true, configurable: true });
    } catch {
      // frozen error: it will be recorded twice at worst
    }
  }
  return err;
}

/** See the module comment. */
export function safeFacts<T>(f: (v: T) => CallFacts | undefined, v: T): CallFacts | undefined {
  try {
    const r = f(v);
    return r ? { ...r } : undefined;
  } catch {
    return undefined;
  }
}

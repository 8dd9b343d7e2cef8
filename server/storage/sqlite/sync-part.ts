/**
 * A part of the storage interface as its SQLite store implements it: the same methods,
 * answering synchronously (better-sqlite3 is synchronous; one statement is microseconds).
 */
export type SyncPart<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

/**
 * Exposes a synchronous store as its async part: each call runs at once and its result
 * (or what it threw) is handed back as a settled promise, so callers written for the
 * PostgreSQL engine work unchanged and SQLite keeps its prepared statements and speed.
 */
export function asyncPart<T extends object>(sync: SyncPart<T>): T {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(sync) as (keyof typeof sync & string)[]) {
    const member = sync[name] as unknown;
    if (typeof member !== 'function') {
      out[name] = member;
      continue;
    }
    const fn = member as (...args: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve(fn.apply(sync, args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  return out as T;
}

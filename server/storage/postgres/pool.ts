import pg from 'pg';

/** The pool every PostgreSQL part shares; never a module-level global. */
export type PgPool = pg.Pool;
/** One checked-out connection (a transaction, or the lease's session). */
export type PgClient = pg.PoolClient;

const INT8 = 20;
const NUMERIC = 1700;

/**
 * Type parsers for this pool only (never pg's global registry): BIGINT columns hold ms
 * timestamps, counts and ids, all far below 2^53, so they come back as numbers like
 * better-sqlite3 gives them; NUMERIC (what SUM of a BIGINT yields) likewise.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** Options of `createPool`. */
export interface PoolOptions {
  /** Most connections this process holds (default 10; each collector holds its own pool). */
  max?: number;
  /** Called with errors of idle connections (a restarted server), which pg would otherwise throw. */
  onError?: (err: Error) => void;
}

/** Opens a pool on a `postgres://` URL; connections are made on first use. */
export function createPool(url: string, options: PoolOptions = {}): PgPool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    application_name: 'breakerbox',
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (err) => options.onError?.(err));
  return pool;
}

/** Opens one connection outside any pool, with the same type parsers (the lease's own session). */
export async function connectClient(url: string, options: { onError?: (err: Error) => void; queryTimeoutMs?: number } = {}): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url, types, application_name: 'breakerbox-lease', connectionTimeoutMillis: 10_000,
    // A query that hangs (the server unreachable) fails instead, and the socket notices a dead server.
    query_timeout: options.queryTimeoutMs, keepAlive: true, keepAliveInitialDelayMillis: 5000,
  });
  const onError = options.onError;
  client.on('error', (err) => onError?.(err));
  await client.connect();
  return client;
}

/** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A connection whose rollback failed is in an unknown state: destroy it rather than reuse it.
    client.release(broken);
  }
}

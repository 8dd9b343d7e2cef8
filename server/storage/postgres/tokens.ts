import type { TokensPart } from '../parts/tokens.ts';
import { findPrincipal, generateSecret, hashSecret, storedRights, tokenEntryOf, tokenInfoOf, type TokenEntry, type TokenRow } from '../token-rows.ts';
import type { PgPool } from './pool.ts';

/**
 * Tokens on PostgreSQL. As on SQLite, active tokens are cached for `cacheMs` so ingest
 * verifies with one hash and constant-time comparisons and no round trip; with several
 * collectors that is also how long a token revoked through one of them keeps working on the
 * others (documented in docs/storage.md).
 */
export function createPostgresTokens(pool: PgPool, options: { cacheMs?: number; now?: () => number } = {}): TokensPart {
  const cacheMs = options.cacheMs ?? 5000;
  const now = options.now ?? Date.now;
  let cache: { at: number; entries: TokenEntry[] } | null = null;
  let loading: Promise<TokenEntry[]> | null = null;
  const invalidate = () => {
    cache = null;
  };
  const active = async () => {
    if (cache && now() - cache.at <= cacheMs) return cache.entries;
    // Concurrent requests after expiry share one read.
    loading ??= (async () => {
      try {
        const rows = (await pool.query<TokenRow>({ name: 'tokens_active', text: 'SELECT * FROM tokens WHERE revoked_at IS NULL' })).rows;
        const entries = rows.map(tokenEntryOf);
        cache = { at: now(), entries };
        return entries;
      } finally {
        loading = null;
      }
    })();
    return loading;
  };

  return {
    async create(name, rights, secret = generateSecret()) {
      const { rows } = await pool.query<TokenRow>(
        'INSERT INTO tokens (name, hash, rights, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
        [name, hashSecret(secret).toString('hex'), storedRights(rights), now()],
      );
      invalidate();
      return { secret, token: tokenInfoOf(rows[0]!) };
    },
    async list() {
      return (await pool.query<TokenRow>('SELECT * FROM tokens ORDER BY name COLLATE "C"')).rows.map(tokenInfoOf);
    },
    async revoke(name) {
      const { rowCount } = await pool.query('UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL', [now(), name]);
      invalidate();
      return (rowCount ?? 0) > 0;
    },
    async count() {
      return (await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM tokens WHERE revoked_at IS NULL')).rows[0]!.n;
    },
    async ensure(name, secret, rights) {
      // One upsert: two collectors starting with the same admin token both succeed.
      await pool.query(
        `INSERT INTO tokens (name, hash, rights, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET hash = EXCLUDED.hash, rights = EXCLUDED.rights, revoked_at = NULL`,
        [name, hashSecret(secret).toString('hex'), storedRights(rights), now()],
      );
      invalidate();
    },
    async verify(secret) {
      return findPrincipal(await active(), secret);
    },
  };
}

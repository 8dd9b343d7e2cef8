import { createHash, timingSafeEqual } from 'node:crypto';
import { RIGHTS, expandRights, type Principal, type Right, type TokenInfo, type TokensPart } from '../parts/tokens.ts';
import { generateSecret } from '../sqlite/token-store.ts';
import type { PgPool } from './pool.ts';

interface TokenRow {
  id: number;
  name: string;
  hash: string;
  rights: string;
  created_at: number;
  revoked_at: number | null;
}

const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();
const normaliseRights = (rights: readonly Right[]): Right[] => RIGHTS.filter((r) => rights.includes(r));
const toInfo = (row: TokenRow): TokenInfo => ({
  id: row.id, name: row.name, rights: row.rights.split(',').filter(Boolean) as Right[], createdAt: row.created_at, revokedAt: row.revoked_at,
});

/**
 * Tokens on PostgreSQL. As on SQLite, active tokens are cached for `cacheMs` so ingest
 * verifies with one hash and constant-time comparisons and no round trip; with several
 * collectors that is also how long a token revoked through one of them keeps working on the
 * others (documented in docs/storage.md).
 */
export function createPostgresTokens(pool: PgPool, options: { cacheMs?: number; now?: () => number } = {}): TokensPart {
  const cacheMs = options.cacheMs ?? 5000;
  const now = options.now ?? Date.now;
  let cache: { at: number; entries: { hash: Buffer; principal: Principal }[] } | null = null;
  let loading: Promise<{ hash: Buffer; principal: Principal }[]> | null = null;
  const invalidate = () => {
    cache = null;
  };
  const active = async () => {
    if (cache && now() - cache.at <= cacheMs) return cache.entries;
    // Concurrent requests after expiry share one read.
    loading ??= (async () => {
      try {
        const rows = (await pool.query<TokenRow>({ name: 'tokens_active', text: 'SELECT * FROM tokens WHERE revoked_at IS NULL' })).rows;
        const entries = rows.map((row) => ({
          hash: Buffer.from(row.hash, 'hex'),
          principal: { tokenId: row.id, name: row.name, rights: expandRights(row.rights.split(',') as Right[]) },
        }));
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
        [name, hashSecret(secret).toString('hex'), normaliseRights(rights).join(','), now()],
      );
      invalidate();
      return { secret, token: toInfo(rows[0]!) };
    },
    async list() {
      return (await pool.query<TokenRow>('SELECT * FROM tokens ORDER BY name COLLATE "C"')).rows.map(toInfo);
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
        [name, hashSecret(secret).toString('hex'), normaliseRights(rights).join(','), now()],
      );
      invalidate();
    },
    async verify(secret) {
      const candidate = hashSecret(secret);
      let found: Principal | null = null;
      // Compare against every token, without an early exit, so timing says nothing about which matched.
      for (const entry of await active()) {
        if (timingSafeEqual(entry.hash, candidate) && found === null) found = entry.principal;
      }
      return found;
    },
  };
}

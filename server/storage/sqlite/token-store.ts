import type { Db } from './database.ts';
import type { TokensPart } from '../parts/tokens.ts';
import { findPrincipal, generateSecret, hashSecret, storedRights, tokenEntryOf, tokenInfoOf, type TokenEntry, type TokenRow } from '../token-rows.ts';
import type { SyncPart } from './sync-part.ts';

/** The tokens part, answered synchronously over one connection. */
export type TokenStore = SyncPart<TokensPart>;

/**
 * Creates the token store. Active tokens are cached in memory for a few seconds so that
 * verification is one hash and a constant-time comparison against each, with no early
 * exit and no database read on the hot ingest path; tokens made by the CLI in another
 * process show up within `cacheMs`.
 */
export function createTokenStore(db: Db, options: { cacheMs?: number; now?: () => number } = {}): TokenStore {
  const cacheMs = options.cacheMs ?? 5000;
  const now = options.now ?? Date.now;
  const insert = db.prepare('INSERT INTO tokens (name, hash, rights, created_at) VALUES (?, ?, ?, ?)');
  const selectAll = db.prepare('SELECT * FROM tokens ORDER BY name');
  const selectActive = db.prepare('SELECT * FROM tokens WHERE revoked_at IS NULL');
  const selectByName = db.prepare('SELECT * FROM tokens WHERE name = ?');
  const revokeStmt = db.prepare('UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL');
  const countStmt = db.prepare('SELECT COUNT(*) AS n FROM tokens WHERE revoked_at IS NULL');
  const byId = db.prepare('SELECT * FROM tokens WHERE id = ?');
  const updateStmt = db.prepare('UPDATE tokens SET hash = ?, rights = ?, revoked_at = NULL WHERE name = ?');

  let cache: { at: number; entries: TokenEntry[] } | null = null;
  const invalidate = () => {
    cache = null;
  };
  const active = () => {
    if (!cache || now() - cache.at > cacheMs) {
      cache = { at: now(), entries: (selectActive.all() as TokenRow[]).map(tokenEntryOf) };
    }
    return cache.entries;
  };

  return {
    create(name, rights, secret = generateSecret()) {
      const info = insert.run(name, hashSecret(secret).toString('hex'), storedRights(rights), now());
      invalidate();
      const row = byId.get(info.lastInsertRowid) as TokenRow;
      return { secret, token: tokenInfoOf(row) };
    },
    list() {
      return (selectAll.all() as TokenRow[]).map(tokenInfoOf);
    },
    revoke(name) {
      const changed = revokeStmt.run(now(), name).changes > 0;
      invalidate();
      return changed;
    },
    count() {
      return (countStmt.get() as { n: number }).n;
    },
    ensure(name, secret, rights) {
      const hash = hashSecret(secret).toString('hex');
      const existing = selectByName.get(name) as TokenRow | undefined;
      if (existing) updateStmt.run(hash, storedRights(rights), name);
      else insert.run(name, hash, storedRights(rights), now());
      invalidate();
    },
    verify(secret) {
      return findPrincipal(active(), secret);
    },
  };
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './database.ts';
import { RIGHTS, expandRights, type Principal, type Right, type TokenInfo, type TokensPart } from '../parts/tokens.ts';
import type { SyncPart } from './sync-part.ts';

interface TokenRow {
  id: number;
  name: string;
  hash: string;
  rights: string;
  created_at: number;
  revoked_at: number | null;
}

/** The tokens part, answered synchronously over one connection. */
export type TokenStore = SyncPart<TokensPart>;

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function toInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    rights: row.rights.split(',').filter(Boolean) as Right[],
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** New secrets: 32 random bytes, prefixed so they are recognisable in a secret scanner. */
export function generateSecret(): string {
  return `bbx_${randomBytes(32).toString('base64url')}`;
}

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

  let cache: { at: number; entries: { hash: Buffer; principal: Principal }[] } | null = null;
  const invalidate = () => {
    cache = null;
  };
  const active = () => {
    if (!cache || now() - cache.at > cacheMs) {
      const rows = selectActive.all() as TokenRow[];
      cache = {
        at: now(),
        entries: rows.map((row) => ({
          hash: Buffer.from(row.hash, 'hex'),
          principal: { tokenId: row.id, name: row.name, rights: expandRights(row.rights.split(',') as Right[]) },
        })),
      };
    }
    return cache.entries;
  };

  return {
    create(name, rights, secret = generateSecret()) {
      const info = insert.run(name, hashSecret(secret).toString('hex'), normaliseRights(rights).join(','), now());
      invalidate();
      const row = byId.get(info.lastInsertRowid) as TokenRow;
      return { secret, token: toInfo(row) };
    },
    list() {
      return (selectAll.all() as TokenRow[]).map(toInfo);
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
      if (existing) updateStmt.run(hash, normaliseRights(rights).join(','), name);
      else insert.run(name, hash, normaliseRights(rights).join(','), now());
      invalidate();
    },
    verify(secret) {
      const candidate = hashSecret(secret);
      let found: Principal | null = null;
      // Compare against every token, without an early exit, so timing says nothing about which matched.
      for (const entry of active()) {
        if (timingSafeEqual(entry.hash, candidate) && found === null) found = entry.principal;
      }
      return found;
    },
  };
}

function normaliseRights(rights: Right[]): Right[] {
  return RIGHTS.filter((r) => rights.includes(r));
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './database.ts';

/** What a token may do. `admin` implies the other two. */
export type Right = 'ingest' | 'read' | 'admin';
export const RIGHTS: readonly Right[] = ['ingest', 'read', 'admin'];

/** A token as listed: never its secret or hash. */
export interface TokenInfo {
  id: number;
  name: string;
  rights: Right[];
  createdAt: number;
  revokedAt: number | null;
}

/** The identity a verified secret resolves to. */
export interface Principal {
  tokenId: number;
  name: string;
  rights: ReadonlySet<Right>;
}

interface TokenRow {
  id: number;
  name: string;
  hash: string;
  rights: string;
  created_at: number;
  revoked_at: number | null;
}

/** Token persistence and verification over one database handle. */
export interface TokenStore {
  create(name: string, rights: Right[], secret?: string): { secret: string; token: TokenInfo };
  list(): TokenInfo[];
  revoke(name: string): boolean;
  count(): number;
  /** Ensures a token named `name` exists with exactly this secret and rights. */
  ensure(name: string, secret: string, rights: Right[]): void;
  verify(secret: string): Principal | null;
}

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
      const row = db.prepare('SELECT * FROM tokens WHERE id = ?').get(info.lastInsertRowid) as TokenRow;
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

function expandRights(rights: Right[]): ReadonlySet<Right> {
  return new Set(rights.includes('admin') ? RIGHTS : rights);
}

/** Parses `ingest,read` into rights, naming the first unknown one. */
export function parseRights(text: string): Right[] {
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error('--rights needs at least one of ingest, read, admin');
  for (const p of parts) {
    if (!RIGHTS.includes(p as Right)) throw new Error(`--rights: unknown right "${p}" (allowed: ingest, read, admin)`);
  }
  return parts as Right[];
}

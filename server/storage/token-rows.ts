/**
 * What both engines do with a `tokens` row: how a secret is hashed and compared, how rights
 * are stored, and how a row reads back. Only the SQL differs per engine.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RIGHTS, expandRights, type Principal, type Right, type TokenInfo } from './parts/tokens.ts';

/** A `tokens` row as both engines return it. */
export interface TokenRow {
  id: number;
  name: string;
  hash: string;
  rights: string;
  created_at: number;
  revoked_at: number | null;
}

/** An active token held in an engine's short verify cache. */
export interface TokenEntry {
  hash: Buffer;
  principal: Principal;
}

/** sha256 of the secret: only this is stored (hex), never the secret. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Rights as stored: known ones only, in `RIGHTS` order, comma-separated. */
export function storedRights(rights: readonly Right[]): string {
  return RIGHTS.filter((r) => rights.includes(r)).join(',');
}

/** A row as the API lists it. */
export function tokenInfoOf(row: TokenRow): TokenInfo {
  return { id: row.id, name: row.name, rights: row.rights.split(',').filter(Boolean) as Right[], createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** An active row as the verify cache holds it. */
export function tokenEntryOf(row: TokenRow): TokenEntry {
  return { hash: Buffer.from(row.hash, 'hex'), principal: { tokenId: row.id, name: row.name, rights: expandRights(row.rights.split(',') as Right[]) } };
}

/** The principal whose token hashes to `secret`'s hash, or null. */
export function findPrincipal(entries: readonly TokenEntry[], secret: string): Principal | null {
  const candidate = hashSecret(secret);
  let found: Principal | null = null;
  // Compare against every token, without an early exit, so timing says nothing about which matched.
  for (const entry of entries) {
    if (timingSafeEqual(entry.hash, candidate) && found === null) found = entry.principal;
  }
  return found;
}

/** New secrets: 32 random bytes, prefixed so they are recognisable in a secret scanner. */
export function generateSecret(): string {
  return `bbx_${randomBytes(32).toString('base64url')}`;
}

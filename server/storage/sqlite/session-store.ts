import type { Db } from './database.ts';
import type { SessionsPart } from '../parts/sessions.ts';
import type { Right } from '../parts/tokens.ts';
import type { SyncPart } from './sync-part.ts';

/** Creates the sessions part over the SQLite connection. */
export function createSessionStore(db: Db): SyncPart<SessionsPart> {
  const insert = db.prepare(`INSERT INTO sessions (id_hash, token_id, token_hash, created_at, expires_at)
    SELECT ?, id, hash, ?, ? FROM tokens WHERE id = ? AND revoked_at IS NULL`);
  const lookup = db.prepare(`
    SELECT t.id AS token_id, t.name, t.rights, s.expires_at
    FROM sessions s JOIN tokens t ON t.id = s.token_id AND t.hash = s.token_hash
    WHERE s.id_hash = ? AND s.expires_at > ? AND t.revoked_at IS NULL`);
  const remove = db.prepare('DELETE FROM sessions WHERE id_hash = ?');
  return {
    create: (s) => insert.run(s.idHash, s.createdAt, s.expiresAt, s.tokenId).changes > 0,
    lookup(idHash, now) {
      const row = lookup.get(idHash, now) as { token_id: number; name: string; rights: string; expires_at: number } | undefined;
      return row ? { tokenId: row.token_id, name: row.name, rights: row.rights.split(',').filter(Boolean) as Right[], expiresAt: row.expires_at } : null;
    },
    remove: (idHash) => void remove.run(idHash),
  };
}

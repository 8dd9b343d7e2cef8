import type { SessionsPart } from '../parts/sessions.ts';
import type { Right } from '../parts/tokens.ts';
import type { PgPool } from './pool.ts';

/**
 * Dashboard sessions on PostgreSQL: shared by every collector, so a browser signed in
 * through one is signed in on all of them (the cookie carries the id, the row its hash).
 */
export function createPostgresSessions(pool: PgPool): SessionsPart {
  return {
    async create(s) {
      const { rowCount } = await pool.query({
        name: 'session_create',
        text: `INSERT INTO sessions (id_hash, token_id, token_hash, created_at, expires_at)
          SELECT $1, id, hash, $2, $3 FROM tokens WHERE id = $4 AND revoked_at IS NULL`,
        values: [s.idHash, s.createdAt, s.expiresAt, s.tokenId],
      });
      return (rowCount ?? 0) > 0;
    },
    async lookup(idHash, now) {
      const { rows } = await pool.query<{ token_id: number; name: string; rights: string; expires_at: number }>({
        name: 'session_lookup',
        text: `SELECT t.id AS token_id, t.name, t.rights, s.expires_at
          FROM sessions s JOIN tokens t ON t.id = s.token_id AND t.hash = s.token_hash
          WHERE s.id_hash = $1 AND s.expires_at > $2 AND t.revoked_at IS NULL`,
        values: [idHash, now],
      });
      const row = rows[0];
      return row ? { tokenId: row.token_id, name: row.name, rights: row.rights.split(',').filter(Boolean) as Right[], expiresAt: row.expires_at } : null;
    },
    async remove(idHash) {
      await pool.query({ name: 'session_remove', text: 'DELETE FROM sessions WHERE id_hash = $1', values: [idHash] });
    },
  };
}

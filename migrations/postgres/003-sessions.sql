-- PostgreSQL translation of migrations/003-sessions.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- Dashboard sign-in sessions. The cookie carries a random id; only its sha256 is stored,
-- so a copy of the database cannot be replayed as a cookie. A session lives only while its
-- token does (joined on every request) and until expires_at.

CREATE TABLE sessions (
  id_hash     TEXT PRIMARY KEY,       -- sha256 hex of the cookie value
  token_id    BIGINT NOT NULL,       -- the read token it was opened with
  token_hash  TEXT NOT NULL,          -- that token's hash then: a rotated secret ends the session
  created_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL
);
CREATE INDEX sessions_expires ON sessions (expires_at);
CREATE INDEX sessions_token ON sessions (token_id);

-- PostgreSQL translation of migrations/041-fleet-decisions.sql: the same table, columns and meaning.
-- BIGINT for ms times, JSON as TEXT as in SQLite.
CREATE TABLE fleet_decisions (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  key           TEXT NOT NULL,
  key_tag       TEXT NOT NULL,
  origin        TEXT NOT NULL,
  reason        TEXT NOT NULL,
  created_by    TEXT,
  locations     TEXT NOT NULL,
  issued_at     BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL,
  ended_at      BIGINT,
  ended_by      TEXT
);
CREATE INDEX fleet_decisions_running ON fleet_decisions (expires_at);
CREATE INDEX fleet_decisions_key ON fleet_decisions (key_tag, issued_at);

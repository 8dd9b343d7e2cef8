-- PostgreSQL translation of migrations/004-dropped-events.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- Events a sender dropped from its bounded buffer while the collector was unreachable,
-- as reported in the batch envelope's optional `dropped_events` (cumulative per source).
ALTER TABLE sources ADD COLUMN dropped_events BIGINT NOT NULL DEFAULT 0;

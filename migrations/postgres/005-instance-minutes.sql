-- PostgreSQL translation of migrations/005-instance-minutes.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- Per-instance figures per key and minute, maintained at ingest, so the `local` hint and the
-- key detail read minutes instead of raw windows. With them, raw windows no longer need an
-- index by key: at ingest that index cost a page write per distinct key per batch, more
-- than the rows themselves.
ALTER TABLE key_minute_sources ADD COLUMN calls BIGINT NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN failed BIGINT NOT NULL DEFAULT 0;   -- errors of every class
ALTER TABLE key_minute_sources ADD COLUMN slow BIGINT NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN rejected BIGINT NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN retries BIGINT NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN last_end BIGINT NOT NULL DEFAULT 0; -- latest window end seen
DROP INDEX window_events_key_time;

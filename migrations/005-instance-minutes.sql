-- Per-instance figures per key and minute, maintained at ingest, so the `local` hint and the
-- key detail read minutes instead of raw windows. With them, raw windows no longer need an
-- index by key: at ingest that index cost a page write per distinct key per batch, more
-- than the rows themselves.
ALTER TABLE key_minute_sources ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;   -- errors of every class
ALTER TABLE key_minute_sources ADD COLUMN slow INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN rejected INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_minute_sources ADD COLUMN last_end INTEGER NOT NULL DEFAULT 0; -- latest window end seen
DROP INDEX window_events_key_time;

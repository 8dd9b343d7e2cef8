-- PostgreSQL translation of migrations/042-probe-evidence.sql: the same columns and meaning.
ALTER TABLE probe_events ADD COLUMN upstream_request_id TEXT;
ALTER TABLE probe_events ADD COLUMN error_type TEXT;
ALTER TABLE probe_events ADD COLUMN error_code TEXT;
ALTER TABLE probe_events ADD COLUMN message TEXT;

-- PostgreSQL translation of migrations/072-probe-canary.sql: the same columns and meaning.
ALTER TABLE probe_minutes ADD COLUMN wrong_answer BIGINT NOT NULL DEFAULT 0;
ALTER TABLE probe_hours ADD COLUMN wrong_answer BIGINT NOT NULL DEFAULT 0;
ALTER TABLE probe_totals ADD COLUMN wrong_answer BIGINT NOT NULL DEFAULT 0;
ALTER TABLE probe_events ADD COLUMN answer_excerpt TEXT;
ALTER TABLE probe_events ADD COLUMN model_served TEXT;
ALTER TABLE probe_events ADD COLUMN system_fingerprint TEXT;

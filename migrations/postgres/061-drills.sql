-- PostgreSQL translation of migrations/061-drills.sql: the same tables, columns and meaning (BIGINT for ms times, JSON as TEXT as in SQLite).
CREATE TABLE drill_runs (
  id            TEXT PRIMARY KEY,
  service       TEXT NOT NULL,
  kinds         TEXT NOT NULL,          -- JSON array of drill kinds, run in this order
  keys          TEXT,                   -- JSON array of breaker keys; NULL = every chain's primary
  step_ms       BIGINT NOT NULL,       -- how long each kind runs
  issued_at     BIGINT NOT NULL,
  ends_at       BIGINT NOT NULL,       -- issued_at + kinds x step_ms, or when it was stopped
  stopped_at    BIGINT,
  stopped_by    TEXT,
  created_by    TEXT,
  updated_at    BIGINT NOT NULL,       -- moved by a stop: collectors' feeds poll on it
  report        TEXT,                   -- JSON, once judged
  judged_at     BIGINT
);
CREATE INDEX drill_runs_service ON drill_runs (service, issued_at);
CREATE INDEX drill_runs_updated ON drill_runs (updated_at);
CREATE INDEX drill_runs_unjudged ON drill_runs (ends_at) WHERE report IS NULL;

-- One row per accepted drill batch, its events as sent (JSON): judged whole when the run ends.
CREATE TABLE drill_batches (
  drill_id      TEXT NOT NULL,
  batch_id      TEXT NOT NULL,
  service       TEXT NOT NULL,
  instance      TEXT NOT NULL,
  received_at   BIGINT NOT NULL,
  events        TEXT NOT NULL,
  PRIMARY KEY (drill_id, batch_id)
);

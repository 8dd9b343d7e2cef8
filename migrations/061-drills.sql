-- Failure drills (issue 26, docs/drills.md). A run is one drill command the collector sent to
-- a service's instances; its report is written once the run has ended and its telemetry has
-- had time to arrive. Drill traffic (batches with `drill_id`) lands in drill_batches only,
-- never in the rollups, transitions or tasks the verdicts, alerts, /metrics and cost read.
CREATE TABLE drill_runs (
  id            TEXT PRIMARY KEY,
  service       TEXT NOT NULL,
  kinds         TEXT NOT NULL,          -- JSON array of drill kinds, run in this order
  keys          TEXT,                   -- JSON array of breaker keys; NULL = every chain's primary
  step_ms       INTEGER NOT NULL,       -- how long each kind runs
  issued_at     INTEGER NOT NULL,
  ends_at       INTEGER NOT NULL,       -- issued_at + kinds x step_ms, or when it was stopped
  stopped_at    INTEGER,
  stopped_by    TEXT,
  created_by    TEXT,
  updated_at    INTEGER NOT NULL,       -- moved by a stop: collectors' feeds poll on it
  report        TEXT,                   -- JSON, once judged
  judged_at     INTEGER
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
  received_at   INTEGER NOT NULL,
  events        TEXT NOT NULL,
  PRIMARY KEY (drill_id, batch_id)
);

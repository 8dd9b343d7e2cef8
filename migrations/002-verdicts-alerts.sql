-- Verdicts and alerts: hourly aggregates of the per-minute rollups (so a 24 h or 7 d
-- window reads 24 or 168 rows per key instead of 1,440 or 10,080), alert state, silences
-- and notification deliveries. Times are integer milliseconds since the Unix epoch (UTC).

-- Hourly sums of key_minutes, same counters, hour-first like the minute tables. Built by the collector (server/verdicts/
-- hour-rollups.ts) for hours that ended at least 10 minutes ago, never by ingest.
CREATE TABLE key_hours (
  key_id            INTEGER NOT NULL,
  service_id        INTEGER NOT NULL,
  hour              INTEGER NOT NULL,   -- ms, floored to the hour
  calls             INTEGER NOT NULL DEFAULT 0,
  ok                INTEGER NOT NULL DEFAULT 0,
  slow              INTEGER NOT NULL DEFAULT 0,
  e_rate_limit      INTEGER NOT NULL DEFAULT 0,
  e_quota           INTEGER NOT NULL DEFAULT 0,
  e_server          INTEGER NOT NULL DEFAULT 0,
  e_network         INTEGER NOT NULL DEFAULT 0,
  e_timeout         INTEGER NOT NULL DEFAULT 0,
  e_bad_request     INTEGER NOT NULL DEFAULT 0,
  e_auth            INTEGER NOT NULL DEFAULT 0,
  e_context_length  INTEGER NOT NULL DEFAULT 0,
  e_policy          INTEGER NOT NULL DEFAULT 0,
  e_truncated       INTEGER NOT NULL DEFAULT 0,
  e_stream_broken   INTEGER NOT NULL DEFAULT 0,
  rejected          INTEGER NOT NULL DEFAULT 0,
  short_circuited   INTEGER NOT NULL DEFAULT 0,
  retries           INTEGER NOT NULL DEFAULT 0,
  cold_excluded     INTEGER NOT NULL DEFAULT 0,
  half_open_ok      INTEGER NOT NULL DEFAULT 0,
  half_open_failed  INTEGER NOT NULL DEFAULT 0,
  input_tokens      INTEGER NOT NULL DEFAULT 0,
  output_tokens     INTEGER NOT NULL DEFAULT 0,
  cost_usd          REAL NOT NULL DEFAULT 0,
  windows           INTEGER NOT NULL DEFAULT 0,
  transitions       INTEGER NOT NULL DEFAULT 0,
  opens             INTEGER NOT NULL DEFAULT 0,
  h0 INTEGER NOT NULL DEFAULT 0, h1 INTEGER NOT NULL DEFAULT 0, h2 INTEGER NOT NULL DEFAULT 0,
  h3 INTEGER NOT NULL DEFAULT 0, h4 INTEGER NOT NULL DEFAULT 0, h5 INTEGER NOT NULL DEFAULT 0,
  h6 INTEGER NOT NULL DEFAULT 0, h7 INTEGER NOT NULL DEFAULT 0, h8 INTEGER NOT NULL DEFAULT 0,
  h9 INTEGER NOT NULL DEFAULT 0, h10 INTEGER NOT NULL DEFAULT 0, h11 INTEGER NOT NULL DEFAULT 0,
  t0 INTEGER NOT NULL DEFAULT 0, t1 INTEGER NOT NULL DEFAULT 0, t2 INTEGER NOT NULL DEFAULT 0,
  t3 INTEGER NOT NULL DEFAULT 0, t4 INTEGER NOT NULL DEFAULT 0, t5 INTEGER NOT NULL DEFAULT 0,
  t6 INTEGER NOT NULL DEFAULT 0, t7 INTEGER NOT NULL DEFAULT 0, t8 INTEGER NOT NULL DEFAULT 0,
  t9 INTEGER NOT NULL DEFAULT 0, t10 INTEGER NOT NULL DEFAULT 0, t11 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, key_id, service_id)
) WITHOUT ROWID;
CREATE INDEX key_hours_key ON key_hours (key_id, hour);

-- Instances reporting a key per hour, with how many minutes each reported (open-share denominator).
CREATE TABLE key_hour_sources (
  key_id     INTEGER NOT NULL,
  hour       INTEGER NOT NULL,
  source_id  INTEGER NOT NULL,
  minutes    INTEGER NOT NULL,
  PRIMARY KEY (hour, key_id, source_id)
) WITHOUT ROWID;
CREATE INDEX key_hour_sources_key ON key_hour_sources (key_id, hour);

-- Hourly sums of probe_minutes, same counters.
CREATE TABLE probe_hours (
  key_id         INTEGER NOT NULL,
  location       TEXT NOT NULL,
  hour           INTEGER NOT NULL,
  probes         INTEGER NOT NULL DEFAULT 0,
  ok             INTEGER NOT NULL DEFAULT 0,
  slow           INTEGER NOT NULL DEFAULT 0,
  error          INTEGER NOT NULL DEFAULT 0,
  misconfigured  INTEGER NOT NULL DEFAULT 0,
  cold           INTEGER NOT NULL DEFAULT 0,
  total_ms_sum   REAL NOT NULL DEFAULT 0,
  cost_usd       REAL NOT NULL DEFAULT 0,
  h0 INTEGER NOT NULL DEFAULT 0, h1 INTEGER NOT NULL DEFAULT 0, h2 INTEGER NOT NULL DEFAULT 0,
  h3 INTEGER NOT NULL DEFAULT 0, h4 INTEGER NOT NULL DEFAULT 0, h5 INTEGER NOT NULL DEFAULT 0,
  h6 INTEGER NOT NULL DEFAULT 0, h7 INTEGER NOT NULL DEFAULT 0, h8 INTEGER NOT NULL DEFAULT 0,
  h9 INTEGER NOT NULL DEFAULT 0, h10 INTEGER NOT NULL DEFAULT 0, h11 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, key_id, location)
) WITHOUT ROWID;
CREATE INDEX probe_hours_key ON probe_hours (key_id, hour);

-- A version per hour, bumped whenever a rollup row of that hour is written once the hour
-- may already be aggregated (any write to a minute more than 5 minutes old). An hourly
-- aggregate is valid while the version it was built from is the current one.
CREATE TABLE rollup_hour_changes (
  hour     INTEGER PRIMARY KEY,
  version  INTEGER NOT NULL
);
CREATE TABLE rollup_hour_builds (
  hour      INTEGER PRIMARY KEY,
  version   INTEGER NOT NULL,   -- rollup_hour_changes.version when built (0: none then)
  built_at  INTEGER NOT NULL
);

CREATE TRIGGER key_minutes_late_insert AFTER INSERT ON key_minutes
WHEN NEW.minute < (julianday('now') - 2440587.5) * 86400000.0 - 300000
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER key_minutes_late_update AFTER UPDATE ON key_minutes
WHEN NEW.minute < (julianday('now') - 2440587.5) * 86400000.0 - 300000
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER probe_minutes_late_insert AFTER INSERT ON probe_minutes
WHEN NEW.minute < (julianday('now') - 2440587.5) * 86400000.0 - 300000
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER probe_minutes_late_update AFTER UPDATE ON probe_minutes
WHEN NEW.minute < (julianday('now') - 2440587.5) * 86400000.0 - 300000
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER key_minute_sources_late_insert AFTER INSERT ON key_minute_sources
WHEN NEW.minute < (julianday('now') - 2440587.5) * 86400000.0 - 300000
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = version + 1;
END;

-- Breaker state at any moment per key x instance: the latest transition before it, read
-- from this covering index without touching the table (open share, "open on 2 of 5").
CREATE INDEX transition_events_key_source_time ON transition_events (key_id, source_id, ts, to_state);

-- Alerts: one row per occurrence; at most one unresolved row per fingerprint.
CREATE TABLE alerts (
  id           INTEGER PRIMARY KEY,
  fingerprint  TEXT NOT NULL,
  rule         TEXT NOT NULL,
  key_id       INTEGER,              -- NULL for per-operation rules
  location     TEXT,
  operation    TEXT,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'firing', 'resolved')),
  severity     TEXT NOT NULL,
  summary      TEXT NOT NULL,
  value        REAL,
  verdict      TEXT,
  hint         TEXT,
  started_at   INTEGER NOT NULL,
  fired_at     INTEGER,
  resolved_at  INTEGER,
  updated_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX alerts_unresolved_fingerprint ON alerts (fingerprint) WHERE state <> 'resolved';
CREATE INDEX alerts_fingerprint_started ON alerts (fingerprint, started_at);
CREATE INDEX alerts_started ON alerts (started_at);

-- What each notifier was last told about an alert, so restarts neither re-page nor forget.
CREATE TABLE alert_notifications (
  alert_id         INTEGER NOT NULL,
  notifier         TEXT NOT NULL,
  last_event       TEXT,              -- firing | repeat | resolved, NULL before the first success
  last_sent_at     INTEGER,           -- last successful delivery
  last_attempt_at  INTEGER NOT NULL,
  last_status      TEXT NOT NULL,     -- ok | failed
  PRIMARY KEY (alert_id, notifier)
) WITHOUT ROWID;

CREATE TABLE silences (
  id          TEXT PRIMARY KEY,
  matchers    TEXT NOT NULL,         -- JSON [{name, value, regex}]
  starts_at   INTEGER NOT NULL,
  ends_at     INTEGER NOT NULL,
  comment     TEXT NOT NULL,
  created_by  TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX silences_ends ON silences (ends_at);

CREATE TABLE notification_deliveries (
  id           INTEGER PRIMARY KEY,
  notifier     TEXT NOT NULL,
  type         TEXT NOT NULL,
  alert_id     INTEGER NOT NULL,
  fingerprint  TEXT NOT NULL,
  rule         TEXT NOT NULL,
  event        TEXT NOT NULL,         -- firing | repeat | resolved
  status       TEXT NOT NULL,         -- pending | ok | failed
  attempts     INTEGER NOT NULL DEFAULT 0,
  http_status  INTEGER,
  error        TEXT,                  -- redacted: never a URL secret, routing key or header value
  created_at   INTEGER NOT NULL,
  finished_at  INTEGER
);
CREATE INDEX notification_deliveries_created ON notification_deliveries (created_at);

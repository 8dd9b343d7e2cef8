-- PostgreSQL translation of migrations/002-verdicts-alerts.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- Verdicts and alerts: hourly aggregates of the per-minute rollups (so a 24 h or 7 d
-- window reads 24 or 168 rows per key instead of 1,440 or 10,080), alert state, silences
-- and notification deliveries. Times are integer milliseconds since the Unix epoch (UTC).

-- Hourly sums of key_minutes, same counters, hour-first like the minute tables. Built by the collector (server/verdicts/
-- hour-rollups.ts) for hours that ended at least 10 minutes ago, never by ingest.
CREATE TABLE key_hours (
  key_id            BIGINT NOT NULL,
  service_id        BIGINT NOT NULL,
  hour              BIGINT NOT NULL,   -- ms, floored to the hour
  calls             BIGINT NOT NULL DEFAULT 0,
  ok                BIGINT NOT NULL DEFAULT 0,
  slow              BIGINT NOT NULL DEFAULT 0,
  e_rate_limit      BIGINT NOT NULL DEFAULT 0,
  e_quota           BIGINT NOT NULL DEFAULT 0,
  e_server          BIGINT NOT NULL DEFAULT 0,
  e_network         BIGINT NOT NULL DEFAULT 0,
  e_timeout         BIGINT NOT NULL DEFAULT 0,
  e_bad_request     BIGINT NOT NULL DEFAULT 0,
  e_auth            BIGINT NOT NULL DEFAULT 0,
  e_context_length  BIGINT NOT NULL DEFAULT 0,
  e_policy          BIGINT NOT NULL DEFAULT 0,
  e_truncated       BIGINT NOT NULL DEFAULT 0,
  e_stream_broken   BIGINT NOT NULL DEFAULT 0,
  rejected          BIGINT NOT NULL DEFAULT 0,
  short_circuited   BIGINT NOT NULL DEFAULT 0,
  retries           BIGINT NOT NULL DEFAULT 0,
  cold_excluded     BIGINT NOT NULL DEFAULT 0,
  half_open_ok      BIGINT NOT NULL DEFAULT 0,
  half_open_failed  BIGINT NOT NULL DEFAULT 0,
  input_tokens      BIGINT NOT NULL DEFAULT 0,
  output_tokens     BIGINT NOT NULL DEFAULT 0,
  cost_usd          DOUBLE PRECISION NOT NULL DEFAULT 0,
  windows           BIGINT NOT NULL DEFAULT 0,
  transitions       BIGINT NOT NULL DEFAULT 0,
  opens             BIGINT NOT NULL DEFAULT 0,
  h0 BIGINT NOT NULL DEFAULT 0, h1 BIGINT NOT NULL DEFAULT 0, h2 BIGINT NOT NULL DEFAULT 0,
  h3 BIGINT NOT NULL DEFAULT 0, h4 BIGINT NOT NULL DEFAULT 0, h5 BIGINT NOT NULL DEFAULT 0,
  h6 BIGINT NOT NULL DEFAULT 0, h7 BIGINT NOT NULL DEFAULT 0, h8 BIGINT NOT NULL DEFAULT 0,
  h9 BIGINT NOT NULL DEFAULT 0, h10 BIGINT NOT NULL DEFAULT 0, h11 BIGINT NOT NULL DEFAULT 0,
  t0 BIGINT NOT NULL DEFAULT 0, t1 BIGINT NOT NULL DEFAULT 0, t2 BIGINT NOT NULL DEFAULT 0,
  t3 BIGINT NOT NULL DEFAULT 0, t4 BIGINT NOT NULL DEFAULT 0, t5 BIGINT NOT NULL DEFAULT 0,
  t6 BIGINT NOT NULL DEFAULT 0, t7 BIGINT NOT NULL DEFAULT 0, t8 BIGINT NOT NULL DEFAULT 0,
  t9 BIGINT NOT NULL DEFAULT 0, t10 BIGINT NOT NULL DEFAULT 0, t11 BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, key_id, service_id)
);
CREATE INDEX key_hours_key ON key_hours (key_id, hour);

-- Instances reporting a key per hour, with how many minutes each reported (open-share denominator).
CREATE TABLE key_hour_sources (
  key_id     BIGINT NOT NULL,
  hour       BIGINT NOT NULL,
  source_id  BIGINT NOT NULL,
  minutes    BIGINT NOT NULL,
  PRIMARY KEY (hour, key_id, source_id)
);
CREATE INDEX key_hour_sources_key ON key_hour_sources (key_id, hour);

-- Hourly sums of probe_minutes, same counters.
CREATE TABLE probe_hours (
  key_id         BIGINT NOT NULL,
  location       TEXT NOT NULL,
  hour           BIGINT NOT NULL,
  probes         BIGINT NOT NULL DEFAULT 0,
  ok             BIGINT NOT NULL DEFAULT 0,
  slow           BIGINT NOT NULL DEFAULT 0,
  error          BIGINT NOT NULL DEFAULT 0,
  misconfigured  BIGINT NOT NULL DEFAULT 0,
  cold           BIGINT NOT NULL DEFAULT 0,
  total_ms_sum   DOUBLE PRECISION NOT NULL DEFAULT 0,
  cost_usd       DOUBLE PRECISION NOT NULL DEFAULT 0,
  h0 BIGINT NOT NULL DEFAULT 0, h1 BIGINT NOT NULL DEFAULT 0, h2 BIGINT NOT NULL DEFAULT 0,
  h3 BIGINT NOT NULL DEFAULT 0, h4 BIGINT NOT NULL DEFAULT 0, h5 BIGINT NOT NULL DEFAULT 0,
  h6 BIGINT NOT NULL DEFAULT 0, h7 BIGINT NOT NULL DEFAULT 0, h8 BIGINT NOT NULL DEFAULT 0,
  h9 BIGINT NOT NULL DEFAULT 0, h10 BIGINT NOT NULL DEFAULT 0, h11 BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, key_id, location)
);
CREATE INDEX probe_hours_key ON probe_hours (key_id, hour);

-- A version per hour, bumped whenever a rollup row of that hour is written once the hour
-- may already be aggregated (any write to a minute more than 5 minutes old). An hourly
-- aggregate is valid while the version it was built from is the current one.
CREATE TABLE rollup_hour_changes (
  hour     BIGINT PRIMARY KEY,
  version  BIGINT NOT NULL
);
CREATE TABLE rollup_hour_builds (
  hour      BIGINT PRIMARY KEY,
  version   BIGINT NOT NULL,   -- rollup_hour_changes.version when built (0: none then)
  built_at  BIGINT NOT NULL
);

-- PostgreSQL: one trigger function instead of SQLite's repeated trigger bodies; the same
-- condition (a row of a minute more than 5 minutes before the wall clock) and the same bump.
CREATE FUNCTION bump_rollup_hour() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_hour_changes (hour, version) VALUES (NEW.minute - NEW.minute % 3600000, 1)
    ON CONFLICT (hour) DO UPDATE SET version = rollup_hour_changes.version + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER key_minutes_late_insert AFTER INSERT ON key_minutes FOR EACH ROW
WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000)
EXECUTE FUNCTION bump_rollup_hour();
CREATE TRIGGER key_minutes_late_update AFTER UPDATE ON key_minutes FOR EACH ROW
WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000)
EXECUTE FUNCTION bump_rollup_hour();
CREATE TRIGGER probe_minutes_late_insert AFTER INSERT ON probe_minutes FOR EACH ROW
WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000)
EXECUTE FUNCTION bump_rollup_hour();
CREATE TRIGGER probe_minutes_late_update AFTER UPDATE ON probe_minutes FOR EACH ROW
WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000)
EXECUTE FUNCTION bump_rollup_hour();
CREATE TRIGGER key_minute_sources_late_insert AFTER INSERT ON key_minute_sources FOR EACH ROW
WHEN (NEW.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000)
EXECUTE FUNCTION bump_rollup_hour();

-- Breaker state at any moment per key x instance: the latest transition before it, read
-- from this covering index without touching the table (open share, "open on 2 of 5").
CREATE INDEX transition_events_key_source_time ON transition_events (key_id, source_id, ts, to_state);

-- Alerts: one row per occurrence; at most one unresolved row per fingerprint.
CREATE TABLE alerts (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  fingerprint  TEXT NOT NULL,
  rule         TEXT NOT NULL,
  key_id       BIGINT,              -- NULL for per-operation rules
  location     TEXT,
  operation    TEXT,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'firing', 'resolved')),
  severity     TEXT NOT NULL,
  summary      TEXT NOT NULL,
  value        DOUBLE PRECISION,
  verdict      TEXT,
  hint         TEXT,
  started_at   BIGINT NOT NULL,
  fired_at     BIGINT,
  resolved_at  BIGINT,
  updated_at   BIGINT NOT NULL
);
CREATE UNIQUE INDEX alerts_unresolved_fingerprint ON alerts (fingerprint) WHERE state <> 'resolved';
CREATE INDEX alerts_fingerprint_started ON alerts (fingerprint, started_at);
CREATE INDEX alerts_started ON alerts (started_at);

-- What each notifier was last told about an alert, so restarts neither re-page nor forget.
CREATE TABLE alert_notifications (
  alert_id         BIGINT NOT NULL,
  notifier         TEXT NOT NULL,
  last_event       TEXT,              -- firing | repeat | resolved, NULL before the first success
  last_sent_at     BIGINT,           -- last successful delivery
  last_attempt_at  BIGINT NOT NULL,
  last_status      TEXT NOT NULL,     -- ok | failed
  PRIMARY KEY (alert_id, notifier)
);

CREATE TABLE silences (
  id          TEXT PRIMARY KEY,
  matchers    TEXT NOT NULL,         -- JSON [{name, value, regex}]
  starts_at   BIGINT NOT NULL,
  ends_at     BIGINT NOT NULL,
  comment     TEXT NOT NULL,
  created_by  TEXT NOT NULL,
  created_at  BIGINT NOT NULL
);
CREATE INDEX silences_ends ON silences (ends_at);

CREATE TABLE notification_deliveries (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  notifier     TEXT NOT NULL,
  type         TEXT NOT NULL,
  alert_id     BIGINT NOT NULL,
  fingerprint  TEXT NOT NULL,
  rule         TEXT NOT NULL,
  event        TEXT NOT NULL,         -- firing | repeat | resolved
  status       TEXT NOT NULL,         -- pending | ok | failed
  attempts     BIGINT NOT NULL DEFAULT 0,
  http_status  BIGINT,
  error        TEXT,                  -- redacted: never a URL secret, routing key or header value
  created_at   BIGINT NOT NULL,
  finished_at  BIGINT
);
CREATE INDEX notification_deliveries_created ON notification_deliveries (created_at);

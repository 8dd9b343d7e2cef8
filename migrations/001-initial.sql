-- Core schema: tokens, normalised keys and sources, raw telemetry, per-minute rollups.
-- Times are integer milliseconds since the Unix epoch (UTC).

CREATE TABLE tokens (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  hash        TEXT NOT NULL,          -- sha256 hex of the secret; the secret is never stored
  rights      TEXT NOT NULL,          -- comma-separated: ingest,read,admin
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);

-- One row per breaker key; region '' stands for "no region" so the unique index holds.
CREATE TABLE keys (
  id          INTEGER PRIMARY KEY,
  provider    TEXT NOT NULL,
  endpoint    TEXT NOT NULL,
  model       TEXT NOT NULL,
  region      TEXT NOT NULL DEFAULT '',
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  UNIQUE (provider, endpoint, model, region)
);

CREATE TABLE services (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE
);

-- One row per reporting instance (service + instance), e.g. ticket-drafts/pod-7 or probe/eu-west.
CREATE TABLE sources (
  id          INTEGER PRIMARY KEY,
  service_id  INTEGER NOT NULL REFERENCES services(id),
  instance    TEXT NOT NULL,
  sdk         TEXT,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  UNIQUE (service_id, instance)
);

-- Batch ids already stored, for idempotent retries (kept at least 24 h).
CREATE TABLE batches (
  batch_id     TEXT PRIMARY KEY,
  received_at  INTEGER NOT NULL,
  events       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX batches_received ON batches (received_at);

CREATE TABLE window_events (
  id               INTEGER PRIMARY KEY,
  key_id           INTEGER NOT NULL,
  source_id        INTEGER NOT NULL,
  start            INTEGER NOT NULL,
  end              INTEGER NOT NULL,
  calls            INTEGER NOT NULL,
  ok               INTEGER NOT NULL,
  slow             INTEGER NOT NULL,
  errors           TEXT NOT NULL,     -- JSON {class: count}
  rejected         INTEGER NOT NULL,
  short_circuited  INTEGER NOT NULL,
  retries          INTEGER NOT NULL,
  cold_excluded    INTEGER NOT NULL,
  half_open_ok     INTEGER NOT NULL,
  half_open_failed INTEGER NOT NULL,
  latency          TEXT NOT NULL,     -- JSON {bounds, counts}
  ttft             TEXT,              -- JSON {bounds, counts} or NULL
  input_tokens     INTEGER NOT NULL,
  output_tokens    INTEGER NOT NULL,
  cost_usd         REAL NOT NULL
);
-- Windows are the bulk of ingest, and every index costs a page write per distinct key per
-- batch; per-service and per-minute questions are answered from key_minutes instead.
CREATE INDEX window_events_key_time ON window_events (key_id, end);
CREATE INDEX window_events_time ON window_events (end);

CREATE TABLE transition_events (
  id           INTEGER PRIMARY KEY,
  key_id       INTEGER NOT NULL,
  source_id    INTEGER NOT NULL,
  ts           INTEGER NOT NULL,
  from_state   TEXT,
  to_state     TEXT NOT NULL,
  reason       TEXT NOT NULL,
  cooldown_ms  INTEGER,
  attempt      INTEGER,
  rate_error   REAL,
  rate_slow    REAL
);
CREATE INDEX transition_events_key_time ON transition_events (key_id, ts);
CREATE INDEX transition_events_source_time ON transition_events (source_id, ts);
CREATE INDEX transition_events_time ON transition_events (ts);

CREATE TABLE task_events (
  id                INTEGER PRIMARY KEY,
  source_id         INTEGER NOT NULL,
  operation         TEXT NOT NULL,
  start             INTEGER NOT NULL,
  end               INTEGER NOT NULL,
  completed         INTEGER NOT NULL,
  failed            INTEGER NOT NULL,
  degraded          INTEGER NOT NULL,
  attempts          INTEGER NOT NULL,
  cost_usd          REAL NOT NULL,
  levels            TEXT NOT NULL,    -- JSON {"0".."4": count}
  fallback_invoked  INTEGER NOT NULL,
  fallback_failed   INTEGER NOT NULL
);
CREATE INDEX task_events_operation_time ON task_events (operation, end);
CREATE INDEX task_events_source_time ON task_events (source_id, end);
CREATE INDEX task_events_time ON task_events (end);

CREATE TABLE config_events (
  id         INTEGER PRIMARY KEY,
  key_id     INTEGER NOT NULL,
  source_id  INTEGER NOT NULL,
  ts         INTEGER NOT NULL,
  settings   TEXT NOT NULL,           -- JSON
  fallbacks  TEXT NOT NULL,           -- JSON array of keys
  warnings   TEXT NOT NULL            -- JSON array of strings
);
CREATE INDEX config_events_key_time ON config_events (key_id, ts);
CREATE INDEX config_events_time ON config_events (ts);

CREATE TABLE probe_events (
  id           INTEGER PRIMARY KEY,
  key_id       INTEGER NOT NULL,
  source_id    INTEGER NOT NULL,
  location     TEXT NOT NULL,
  ts           INTEGER NOT NULL,
  outcome      TEXT NOT NULL,         -- ok | slow | error
  error_class  TEXT,
  status       INTEGER,
  connect_ms   REAL,
  ttfb_ms      REAL,
  total_ms     REAL NOT NULL,
  cold         INTEGER NOT NULL,      -- 0/1
  cost_usd     REAL
);
CREATE INDEX probe_events_key_time ON probe_events (key_id, ts);
CREATE INDEX probe_events_location_time ON probe_events (location, ts);
CREATE INDEX probe_events_time ON probe_events (ts);

-- Per-minute rollups, maintained at ingest. Latency histograms are re-bucketed onto the
-- fixed bounds of sdk/protocol.ts DEFAULT_LATENCY_BOUNDS_MS: h0..h11 (h11 = above the last bound).
-- Primary keys lead with the minute so a batch's upserts touch the few pages of the current
-- minute; a second index by key serves per-key series (updates leave it untouched).

-- Client telemetry per key x service x minute (sum over services for the per-key figure).
CREATE TABLE key_minutes (
  key_id            INTEGER NOT NULL,
  service_id        INTEGER NOT NULL,
  minute            INTEGER NOT NULL,   -- ms, floored to the minute
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
  opens             INTEGER NOT NULL DEFAULT 0,   -- transitions into open / forced_open
  h0 INTEGER NOT NULL DEFAULT 0, h1 INTEGER NOT NULL DEFAULT 0, h2 INTEGER NOT NULL DEFAULT 0,
  h3 INTEGER NOT NULL DEFAULT 0, h4 INTEGER NOT NULL DEFAULT 0, h5 INTEGER NOT NULL DEFAULT 0,
  h6 INTEGER NOT NULL DEFAULT 0, h7 INTEGER NOT NULL DEFAULT 0, h8 INTEGER NOT NULL DEFAULT 0,
  h9 INTEGER NOT NULL DEFAULT 0, h10 INTEGER NOT NULL DEFAULT 0, h11 INTEGER NOT NULL DEFAULT 0,
  t0 INTEGER NOT NULL DEFAULT 0, t1 INTEGER NOT NULL DEFAULT 0, t2 INTEGER NOT NULL DEFAULT 0,
  t3 INTEGER NOT NULL DEFAULT 0, t4 INTEGER NOT NULL DEFAULT 0, t5 INTEGER NOT NULL DEFAULT 0,
  t6 INTEGER NOT NULL DEFAULT 0, t7 INTEGER NOT NULL DEFAULT 0, t8 INTEGER NOT NULL DEFAULT 0,
  t9 INTEGER NOT NULL DEFAULT 0, t10 INTEGER NOT NULL DEFAULT 0, t11 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (minute, key_id, service_id)
) WITHOUT ROWID;
CREATE INDEX key_minutes_key ON key_minutes (key_id, minute);
CREATE INDEX key_minutes_service ON key_minutes (service_id, minute);

-- Which instances reported a key in a minute (windows or transitions): the open-share
-- denominator and the "only some instances" evidence.
CREATE TABLE key_minute_sources (
  key_id     INTEGER NOT NULL,
  minute     INTEGER NOT NULL,
  source_id  INTEGER NOT NULL,
  PRIMARY KEY (minute, key_id, source_id)
) WITHOUT ROWID;
CREATE INDEX key_minute_sources_key ON key_minute_sources (key_id, minute);
CREATE INDEX key_minute_sources_source ON key_minute_sources (source_id, minute);

-- Task outcomes per operation x service x minute.
CREATE TABLE task_minutes (
  operation         TEXT NOT NULL,
  service_id        INTEGER NOT NULL,
  minute            INTEGER NOT NULL,
  completed         INTEGER NOT NULL DEFAULT 0,
  failed            INTEGER NOT NULL DEFAULT 0,
  degraded          INTEGER NOT NULL DEFAULT 0,
  attempts          INTEGER NOT NULL DEFAULT 0,
  cost_usd          REAL NOT NULL DEFAULT 0,
  level0            INTEGER NOT NULL DEFAULT 0,
  level1            INTEGER NOT NULL DEFAULT 0,
  level2            INTEGER NOT NULL DEFAULT 0,
  level3            INTEGER NOT NULL DEFAULT 0,
  level4            INTEGER NOT NULL DEFAULT 0,
  fallback_invoked  INTEGER NOT NULL DEFAULT 0,
  fallback_failed   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (minute, operation, service_id)
) WITHOUT ROWID;
CREATE INDEX task_minutes_operation ON task_minutes (operation, minute);

-- Probe results per key x location x minute.
CREATE TABLE probe_minutes (
  key_id         INTEGER NOT NULL,
  location       TEXT NOT NULL,
  minute         INTEGER NOT NULL,
  probes         INTEGER NOT NULL DEFAULT 0,  -- warm probes only (cold ones are counted apart)
  ok             INTEGER NOT NULL DEFAULT 0,
  slow           INTEGER NOT NULL DEFAULT 0,
  error          INTEGER NOT NULL DEFAULT 0,
  misconfigured  INTEGER NOT NULL DEFAULT 0,  -- bad_request / auth / context_length: the probe, not the provider
  cold           INTEGER NOT NULL DEFAULT 0,
  total_ms_sum   REAL NOT NULL DEFAULT 0,
  cost_usd       REAL NOT NULL DEFAULT 0,
  h0 INTEGER NOT NULL DEFAULT 0, h1 INTEGER NOT NULL DEFAULT 0, h2 INTEGER NOT NULL DEFAULT 0,
  h3 INTEGER NOT NULL DEFAULT 0, h4 INTEGER NOT NULL DEFAULT 0, h5 INTEGER NOT NULL DEFAULT 0,
  h6 INTEGER NOT NULL DEFAULT 0, h7 INTEGER NOT NULL DEFAULT 0, h8 INTEGER NOT NULL DEFAULT 0,
  h9 INTEGER NOT NULL DEFAULT 0, h10 INTEGER NOT NULL DEFAULT 0, h11 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (minute, key_id, location)
) WITHOUT ROWID;
CREATE INDEX probe_minutes_key ON probe_minutes (key_id, minute);

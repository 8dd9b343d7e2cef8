-- Probe on suspicion (docs/alerts.md): a key's client side starting to degrade opens a
-- suspicion; the collector queues immediate probe requests for every prober location
-- covering the key, which probers collect through GET /v1/probe-requests.
CREATE TABLE suspicions (
  id            INTEGER PRIMARY KEY,
  key_id        INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,      -- when the degradation began (first failing window / first open)
  triggered_at  INTEGER NOT NULL,      -- when the collector noticed it and asked
  reason        TEXT NOT NULL,         -- breaker_open | provider_errors
  locations     TEXT NOT NULL          -- JSON array of the locations asked
);
CREATE INDEX suspicions_key_time ON suspicions (key_id, triggered_at);
CREATE INDEX suspicions_time ON suspicions (triggered_at);

CREATE TABLE probe_requests (
  id            INTEGER PRIMARY KEY,
  suspicion_id  INTEGER NOT NULL,
  key_id        INTEGER NOT NULL,
  location      TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  not_before    INTEGER NOT NULL,      -- a burst is spread: the n-th request is due n gaps later
  expires_at    INTEGER NOT NULL,
  delivered_at  INTEGER                -- handed to the prober; NULL while pending
);
CREATE INDEX probe_requests_location_due ON probe_requests (location, delivered_at, not_before);
CREATE INDEX probe_requests_time ON probe_requests (created_at);

-- Probes run on request carry `trigger: 'suspicion'`; NULL = scheduled (older probers).
ALTER TABLE probe_events ADD COLUMN trigger TEXT;

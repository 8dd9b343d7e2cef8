-- Shadow traffic (issue 28): the SDK's aggregated `shadow` events, one row per event: a
-- primary key (key_id), the candidate model the requests were mirrored to (its key as text
-- columns, so a model that only ever ran as a shadow does not become a key), and the
-- properties of both sides' answers as JSON (`ShadowSide`, docs/protocol.md). Kept as long as
-- the rollups (retention.rollup_days): the comparison reads windows of up to 7 days.
CREATE TABLE shadow_windows (
  id                 INTEGER PRIMARY KEY,
  key_id             INTEGER NOT NULL,
  source_id          INTEGER NOT NULL,
  candidate_provider TEXT NOT NULL,
  candidate_endpoint TEXT NOT NULL,
  candidate_model    TEXT NOT NULL,
  candidate_region   TEXT NOT NULL,     -- '' for none, as keys.region
  start              INTEGER NOT NULL,
  "end"              INTEGER NOT NULL,
  pairs              INTEGER NOT NULL,
  dropped            INTEGER NOT NULL,
  primary_side       TEXT NOT NULL,     -- JSON ShadowSide
  shadow_side        TEXT NOT NULL      -- JSON ShadowSide
);
CREATE INDEX shadow_windows_time ON shadow_windows ("end");

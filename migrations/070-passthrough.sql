-- Requests an SDK's fetch wrapper forwarded unprotected (issue 35), as batches report them in
-- their optional `passthrough` field (docs/protocol.md): per minute of arrival, service, host,
-- path family and method, for `/api/keys` over a range (pruned with the minute rollups), and
-- all-time per service, host and path family for `/metrics` (never pruned, as key_totals).
CREATE TABLE passthrough_minutes (
  minute      INTEGER NOT NULL,       -- the minute the batch arrived in
  service_id  INTEGER NOT NULL,
  host        TEXT NOT NULL,
  path_family TEXT NOT NULL,
  method      TEXT NOT NULL,
  requests    INTEGER NOT NULL,
  why         TEXT,                   -- the latest reason reported
  PRIMARY KEY (minute, service_id, host, path_family, method)
) WITHOUT ROWID;

CREATE TABLE passthrough_totals (
  service_id  INTEGER NOT NULL,
  host        TEXT NOT NULL,
  path_family TEXT NOT NULL,
  requests    INTEGER NOT NULL,
  PRIMARY KEY (service_id, host, path_family)
) WITHOUT ROWID;

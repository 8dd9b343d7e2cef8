-- PostgreSQL translation of migrations/070-passthrough.sql: the same tables, columns and meaning.
-- Requests an SDK's fetch wrapper forwarded unprotected (issue 35), as batches report them in
-- their optional `passthrough` field (docs/protocol.md): per minute of arrival, service, host,
-- path family and method, for `/api/keys` over a range (pruned with the minute rollups), and
-- all-time per service, host and path family for `/metrics` (never pruned, as key_totals).
CREATE TABLE passthrough_minutes (
  minute      BIGINT NOT NULL,        -- the minute the batch arrived in
  service_id  BIGINT NOT NULL,
  host        TEXT NOT NULL,
  path_family TEXT NOT NULL,
  method      TEXT NOT NULL,
  requests    BIGINT NOT NULL,
  why         TEXT,                   -- the latest reason reported
  PRIMARY KEY (minute, service_id, host, path_family, method)
);

CREATE TABLE passthrough_totals (
  service_id  BIGINT NOT NULL,
  host        TEXT NOT NULL,
  path_family TEXT NOT NULL,
  requests    BIGINT NOT NULL,
  PRIMARY KEY (service_id, host, path_family)
);

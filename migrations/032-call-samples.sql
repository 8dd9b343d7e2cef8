-- Evidence samples (issue 27): a few failed and slow attempts per key and window, as the SDK
-- sent them in `window.samples` (docs/protocol.md), kept with the raw events (retention.raw_days)
-- and bounded per key and minute at insert (docs/storage.md). `sample` is the wire sample as
-- JSON; the columns beside it are what reads filter and order on.
CREATE TABLE call_samples (
  id                  INTEGER PRIMARY KEY,
  key_id              INTEGER NOT NULL,
  source_id           INTEGER NOT NULL,
  ts                  INTEGER NOT NULL,
  error_class         TEXT,              -- NULL: a slow success
  status              INTEGER,
  upstream_request_id TEXT,
  sample              TEXT NOT NULL      -- JSON CallSample
);
CREATE INDEX call_samples_key_time ON call_samples (key_id, ts);
CREATE INDEX call_samples_time ON call_samples (ts);

-- The change log every collector follows on PostgreSQL (docs/verdict-engine.md, "Several
-- collectors"). On SQLite one collector owns the file and its in-process change feed sees
-- every write, so these tables stay empty: they exist so both engines build the same tables.
CREATE TABLE change_log (
  xid     INTEGER NOT NULL,          -- PostgreSQL: the writing transaction's pg_current_xact_id()
  key_id  INTEGER,                   -- NULL: a write whose reach is not one key
  kind    TEXT NOT NULL,             -- key | probe | tasks | prune | prune_minutes | hour | suspicion
  minute  INTEGER,                   -- the earliest rollup minute the write touched (key and probe rows)
  ts      INTEGER                    -- the latest event time written for the key
);
-- Rows below `below` may have been pruned: a reader whose cursor is older reads everything again.
CREATE TABLE change_log_horizon (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  below   INTEGER NOT NULL
);
INSERT INTO change_log_horizon (id, below) VALUES (1, 0);

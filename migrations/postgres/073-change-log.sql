-- PostgreSQL translation of migrations/073-change-log.sql: the change log every collector
-- follows (docs/verdict-engine.md, "Several collectors"). Every write transaction that
-- changes what verdicts read appends rows here, one per key (and one per global kind), stamped
-- with its own transaction id; insert-only, so collectors writing the same key never wait on
-- each other's row locks. A reader keeps the snapshot xmin of its previous read and reads
-- `xid >= xmin`: every transaction below it had ended when that read ran.
CREATE TABLE change_log (
  xid     xid8 NOT NULL,
  key_id  BIGINT,
  kind    TEXT NOT NULL,
  minute  BIGINT,
  ts      BIGINT
);
CREATE INDEX change_log_xid ON change_log (xid);
-- The leader deletes rows below `below` (a snapshot xmin at least 10 minutes old) and moves
-- it in the same statement: a reader whose cursor is below it may have missed rows.
CREATE TABLE change_log_horizon (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  below   xid8 NOT NULL
);
INSERT INTO change_log_horizon (id, below) VALUES (1, '0');

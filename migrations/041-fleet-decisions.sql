-- Fleet decisions (docs/fleet.md): what the collector tells subscribed SDK instances. Rows
-- come from the leader's verdict evaluation (outage, recovered) and from on-call (drain,
-- release); every collector serves them from here, so a follower on PostgreSQL feeds the
-- same decisions as the leader. Operator rows are the audit trail: who, why, until when.
CREATE TABLE fleet_decisions (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,          -- outage | recovered | drain | release
  key           TEXT NOT NULL,          -- the breaker key as JSON (a drain may name a key that never reported)
  key_tag       TEXT NOT NULL,          -- fleetKeyTag(key): what subscriptions filter on
  origin        TEXT NOT NULL,          -- verdict | operator
  reason        TEXT NOT NULL,
  created_by    TEXT,                   -- the operator's token name (operator rows)
  locations     TEXT NOT NULL,          -- JSON array: the probe locations that decided an outage
  issued_at     INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,       -- every renewal or end moves it: collectors poll on it
  expires_at    INTEGER NOT NULL,       -- renewed while the verdict holds; an operator's expiry
  ended_at      INTEGER,                -- ended early (recovered, released); NULL while it runs
  ended_by      TEXT
);
CREATE INDEX fleet_decisions_running ON fleet_decisions (expires_at);
CREATE INDEX fleet_decisions_key ON fleet_decisions (key_tag, issued_at);

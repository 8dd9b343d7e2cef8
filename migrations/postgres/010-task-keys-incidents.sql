-- PostgreSQL translation of migrations/010-task-keys-incidents.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- Fallback attribution: `tasks` events may carry their primary key (protocol v1, optional
-- field). Per minute, per primary key and service, the fallback figures of those tasks, so
-- `fallback_failing` fires for the key whose chain failed, not every open key of the service.
CREATE TABLE task_key_minutes (
  minute            BIGINT NOT NULL,
  key_id            BIGINT NOT NULL,
  service_id        BIGINT NOT NULL,
  completed         BIGINT NOT NULL DEFAULT 0,
  failed            BIGINT NOT NULL DEFAULT 0,
  fallback_invoked  BIGINT NOT NULL DEFAULT 0,
  fallback_failed   BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (minute, key_id, service_id)
);

-- Grouped notifications: what each notifier was last told about an incident (a group of
-- alerts with one cause), as Alertmanager keeps per aggregation group.
CREATE TABLE incident_notifications (
  group_key        TEXT NOT NULL,
  notifier         TEXT NOT NULL,
  last_event       TEXT,              -- firing | update | repeat | resolved, NULL before the first success
  last_sent_at     BIGINT,
  last_attempt_at  BIGINT NOT NULL,
  last_status      TEXT NOT NULL,     -- ok | failed
  digest           TEXT,              -- what was sent: the firing alerts and the incident's verdict
  PRIMARY KEY (group_key, notifier)
);

ALTER TABLE notification_deliveries ADD COLUMN group_key TEXT;
-- The notification group (incident id, or the alert's own fingerprint) an alert was last in:
-- a resolved alert still owes its group a resolve notice.
ALTER TABLE alerts ADD COLUMN group_key TEXT;

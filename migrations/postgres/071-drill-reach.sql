-- PostgreSQL translation of migrations/071-drill-reach.sql (BIGINT for ms times). Which services' instances a drill can reach (issue 41, docs/drills.md): each collector
-- writes how many feeds of each service it holds, every few seconds, so `POST /api/drills`
-- on any collector of a PostgreSQL fleet refuses a service nobody has subscribed for; and
-- how many feeds each collector sent a run to, so a run that reached nobody ends at once.
CREATE TABLE feed_services (
  collector     TEXT NOT NULL,           -- a collector process's random id
  service       TEXT NOT NULL,
  feeds         INTEGER NOT NULL,
  seen_at       BIGINT NOT NULL,        -- rows older than a few report periods are ignored
  PRIMARY KEY (collector, service)
);

CREATE TABLE drill_deliveries (
  drill_id      TEXT NOT NULL,
  collector     TEXT NOT NULL,
  feeds         INTEGER NOT NULL,
  delivered_at  BIGINT NOT NULL,
  PRIMARY KEY (drill_id, collector)
);

-- PostgreSQL only (migrations/031-statement-hour-bumps.sql is its no-op twin): the late-write
-- bumps of migration 002 become statement-level triggers. A row trigger upserts the same
-- rollup_hour_changes row once per late row; within one transaction each of those updates
-- walks the chain of that row's earlier versions (none can be pruned before the commit), so a
-- backlog batch of late rows cost time quadratic in its rows (5,000 late rows: 434 ms against
-- 44 ms without the trigger; 40,000: 21 s against 0.49 s). Here each statement bumps each hour
-- it touched once, by the number of late rows, so the versions are exactly the row triggers'.
DROP TRIGGER key_minutes_late_insert ON key_minutes;
DROP TRIGGER key_minutes_late_update ON key_minutes;
DROP TRIGGER probe_minutes_late_insert ON probe_minutes;
DROP TRIGGER probe_minutes_late_update ON probe_minutes;
DROP TRIGGER key_minute_sources_late_insert ON key_minute_sources;
DROP FUNCTION bump_rollup_hour();

CREATE FUNCTION bump_rollup_hours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_hour_changes (hour, version)
    SELECT n.minute - n.minute % 3600000, count(*) FROM late_rows n
    WHERE n.minute < floor(extract(epoch FROM clock_timestamp()) * 1000) - 300000
    GROUP BY 1
    ORDER BY 1
  ON CONFLICT (hour) DO UPDATE SET version = rollup_hour_changes.version + excluded.version;
  RETURN NULL;
END;
$$;
CREATE TRIGGER key_minutes_late_insert AFTER INSERT ON key_minutes
  REFERENCING NEW TABLE AS late_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_rollup_hours();
CREATE TRIGGER key_minutes_late_update AFTER UPDATE ON key_minutes
  REFERENCING NEW TABLE AS late_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_rollup_hours();
CREATE TRIGGER probe_minutes_late_insert AFTER INSERT ON probe_minutes
  REFERENCING NEW TABLE AS late_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_rollup_hours();
CREATE TRIGGER probe_minutes_late_update AFTER UPDATE ON probe_minutes
  REFERENCING NEW TABLE AS late_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_rollup_hours();
CREATE TRIGGER key_minute_sources_late_insert AFTER INSERT ON key_minute_sources
  REFERENCING NEW TABLE AS late_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_rollup_hours();

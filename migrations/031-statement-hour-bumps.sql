-- Nothing to change on SQLite: this number is PostgreSQL's statement-level late-write bumps
-- (migrations/postgres/031-statement-hour-bumps.sql). SQLite updates a rollup_hour_changes row in
-- place, so its per-row triggers of migration 002 cost the same for every late row.
SELECT 1;

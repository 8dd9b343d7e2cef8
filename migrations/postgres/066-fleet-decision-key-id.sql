-- PostgreSQL translation of migrations/066-fleet-decision-key-id.sql: the same column and meaning.
ALTER TABLE fleet_decisions ADD COLUMN key_id BIGINT;

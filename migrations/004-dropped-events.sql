-- Events a sender dropped from its bounded buffer while the collector was unreachable,
-- as reported in the batch envelope's optional `dropped_events` (cumulative per source).
ALTER TABLE sources ADD COLUMN dropped_events INTEGER NOT NULL DEFAULT 0;

-- The error class 'unclassified' (issue 24): failures an OTLP sender reported with an error type
-- no rule places, counted apart instead of as bad_request. A new counter column on each
-- per-key rollup; readers and writers address columns by name (protocol/rollup-columns.ts).
ALTER TABLE key_minutes ADD COLUMN e_unclassified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_hours ADD COLUMN e_unclassified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_totals ADD COLUMN e_unclassified INTEGER NOT NULL DEFAULT 0;

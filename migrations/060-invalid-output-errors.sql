-- The error class 'invalid_output' (issue 26): an answer delivered in full that failed the
-- operation's declared validation (docs/drills.md), counted apart from bad_request. A new
-- counter column on each per-key rollup; columns are addressed by name (protocol/rollup-columns.ts).
ALTER TABLE key_minutes ADD COLUMN e_invalid_output INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_hours ADD COLUMN e_invalid_output INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_totals ADD COLUMN e_invalid_output INTEGER NOT NULL DEFAULT 0;

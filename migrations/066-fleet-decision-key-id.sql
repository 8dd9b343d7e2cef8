-- The id of the key a verdict decision is about (keys.id), kept with the decision so the
-- leader's tick (recovery checks, recovery probes) need not look the key up on every pass.
-- NULL on operator rows (a drain may name a key that never reported) and on rows written
-- before this migration; readers look those up by `key`.
ALTER TABLE fleet_decisions ADD COLUMN key_id INTEGER;

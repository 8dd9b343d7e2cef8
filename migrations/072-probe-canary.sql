-- Answer canaries (issue 39): a probe whose answer arrived well-formed but missed its
-- target's canary has outcome 'wrong_answer' (probe_events.outcome is TEXT: no change). The
-- rollups count those probes apart: `wrong_answer` is inside `probes` but neither `ok` nor
-- `error` (it is no transport failure). probe_events keeps the evidence and the served
-- model version the answer named. NULL / 0 for older probers.
ALTER TABLE probe_minutes ADD COLUMN wrong_answer INTEGER NOT NULL DEFAULT 0;
ALTER TABLE probe_hours ADD COLUMN wrong_answer INTEGER NOT NULL DEFAULT 0;
ALTER TABLE probe_totals ADD COLUMN wrong_answer INTEGER NOT NULL DEFAULT 0;
ALTER TABLE probe_events ADD COLUMN answer_excerpt TEXT;
ALTER TABLE probe_events ADD COLUMN model_served TEXT;
ALTER TABLE probe_events ADD COLUMN system_fingerprint TEXT;

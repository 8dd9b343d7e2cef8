-- A failed probe's evidence (issue 27): the provider's request id and its error body's
-- type/code/message, as the prober sent them in the probe event (docs/protocol.md; the
-- message cut and redacted by the prober). NULL for ok probes and older probers.
ALTER TABLE probe_events ADD COLUMN upstream_request_id TEXT;
ALTER TABLE probe_events ADD COLUMN error_type TEXT;
ALTER TABLE probe_events ADD COLUMN error_code TEXT;
ALTER TABLE probe_events ADD COLUMN message TEXT;

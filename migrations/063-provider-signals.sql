-- The provider's own deprecation signal per key (issue 28): the latest `Deprecation` (RFC 9745)
-- and `Sunset` (RFC 8594) dates a key's answers carried, as the SDK reported them in its
-- windows (`deprecation_signal`, docs/protocol.md). One row per key, replaced by the latest
-- window's dates; `responses` counts every answer that carried one since first_seen.
CREATE TABLE provider_signals (
  key_id          INTEGER PRIMARY KEY,
  deprecation_at  INTEGER,              -- ms; NULL when the latest answers sent no Deprecation
  sunset_at       INTEGER,              -- ms; NULL when the latest answers sent no Sunset
  responses       INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,     -- end of the first window that carried a signal
  last_seen       INTEGER NOT NULL      -- end of the latest one
);

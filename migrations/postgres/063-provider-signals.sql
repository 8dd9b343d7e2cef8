-- PostgreSQL translation of migrations/063-provider-signals.sql: the same table, columns and meaning.
CREATE TABLE provider_signals (
  key_id          BIGINT PRIMARY KEY,
  deprecation_at  BIGINT,               -- ms; NULL when the latest answers sent no Deprecation
  sunset_at       BIGINT,               -- ms; NULL when the latest answers sent no Sunset
  responses       BIGINT NOT NULL,
  first_seen      BIGINT NOT NULL,      -- end of the first window that carried a signal
  last_seen       BIGINT NOT NULL       -- end of the latest one
);

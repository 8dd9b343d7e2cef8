-- PostgreSQL translation of migrations/006-metric-totals.sql: the same tables, columns and meaning.
-- BIGINT for ms times and counts, DOUBLE PRECISION for money, JSON as TEXT as in SQLite (JSONB is
-- slower to insert, docs/storage.md); "end" is quoted, a reserved word here.
-- All-time counters for /metrics, maintained at ingest in the batch's transaction next to the
-- per-minute rollups (same columns). Retention never prunes them, so the exported counters
-- only grow: across collector restarts and past the rollup retention. Rows start from what
-- the rollups still held when this migration ran (older, already pruned traffic is not in them).

CREATE TABLE key_totals (
  key_id      BIGINT NOT NULL,
  service_id  BIGINT NOT NULL,
  calls BIGINT NOT NULL DEFAULT 0,
  ok BIGINT NOT NULL DEFAULT 0,
  slow BIGINT NOT NULL DEFAULT 0,
  e_rate_limit BIGINT NOT NULL DEFAULT 0,
  e_quota BIGINT NOT NULL DEFAULT 0,
  e_server BIGINT NOT NULL DEFAULT 0,
  e_network BIGINT NOT NULL DEFAULT 0,
  e_timeout BIGINT NOT NULL DEFAULT 0,
  e_bad_request BIGINT NOT NULL DEFAULT 0,
  e_auth BIGINT NOT NULL DEFAULT 0,
  e_context_length BIGINT NOT NULL DEFAULT 0,
  e_policy BIGINT NOT NULL DEFAULT 0,
  e_truncated BIGINT NOT NULL DEFAULT 0,
  e_stream_broken BIGINT NOT NULL DEFAULT 0,
  rejected BIGINT NOT NULL DEFAULT 0,
  short_circuited BIGINT NOT NULL DEFAULT 0,
  retries BIGINT NOT NULL DEFAULT 0,
  cold_excluded BIGINT NOT NULL DEFAULT 0,
  half_open_ok BIGINT NOT NULL DEFAULT 0,
  half_open_failed BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  windows BIGINT NOT NULL DEFAULT 0,
  transitions BIGINT NOT NULL DEFAULT 0,
  opens BIGINT NOT NULL DEFAULT 0,
  h0 BIGINT NOT NULL DEFAULT 0,
  h1 BIGINT NOT NULL DEFAULT 0,
  h2 BIGINT NOT NULL DEFAULT 0,
  h3 BIGINT NOT NULL DEFAULT 0,
  h4 BIGINT NOT NULL DEFAULT 0,
  h5 BIGINT NOT NULL DEFAULT 0,
  h6 BIGINT NOT NULL DEFAULT 0,
  h7 BIGINT NOT NULL DEFAULT 0,
  h8 BIGINT NOT NULL DEFAULT 0,
  h9 BIGINT NOT NULL DEFAULT 0,
  h10 BIGINT NOT NULL DEFAULT 0,
  h11 BIGINT NOT NULL DEFAULT 0,
  t0 BIGINT NOT NULL DEFAULT 0,
  t1 BIGINT NOT NULL DEFAULT 0,
  t2 BIGINT NOT NULL DEFAULT 0,
  t3 BIGINT NOT NULL DEFAULT 0,
  t4 BIGINT NOT NULL DEFAULT 0,
  t5 BIGINT NOT NULL DEFAULT 0,
  t6 BIGINT NOT NULL DEFAULT 0,
  t7 BIGINT NOT NULL DEFAULT 0,
  t8 BIGINT NOT NULL DEFAULT 0,
  t9 BIGINT NOT NULL DEFAULT 0,
  t10 BIGINT NOT NULL DEFAULT 0,
  t11 BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, service_id)
);
INSERT INTO key_totals (key_id, service_id, calls, ok, slow, e_rate_limit, e_quota, e_server, e_network, e_timeout, e_bad_request, e_auth, e_context_length, e_policy, e_truncated, e_stream_broken, rejected, short_circuited, retries, cold_excluded, half_open_ok, half_open_failed, input_tokens, output_tokens, cost_usd, windows, transitions, opens, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11)
  SELECT key_id, service_id, SUM(calls), SUM(ok), SUM(slow), SUM(e_rate_limit), SUM(e_quota), SUM(e_server), SUM(e_network), SUM(e_timeout), SUM(e_bad_request), SUM(e_auth), SUM(e_context_length), SUM(e_policy), SUM(e_truncated), SUM(e_stream_broken), SUM(rejected), SUM(short_circuited), SUM(retries), SUM(cold_excluded), SUM(half_open_ok), SUM(half_open_failed), SUM(input_tokens), SUM(output_tokens), SUM(cost_usd), SUM(windows), SUM(transitions), SUM(opens), SUM(h0), SUM(h1), SUM(h2), SUM(h3), SUM(h4), SUM(h5), SUM(h6), SUM(h7), SUM(h8), SUM(h9), SUM(h10), SUM(h11), SUM(t0), SUM(t1), SUM(t2), SUM(t3), SUM(t4), SUM(t5), SUM(t6), SUM(t7), SUM(t8), SUM(t9), SUM(t10), SUM(t11) FROM key_minutes GROUP BY key_id, service_id;

-- Breaker transitions by target state and reason (a breaker's first report is not one).
CREATE TABLE key_transition_totals (
  key_id      BIGINT NOT NULL,
  service_id  BIGINT NOT NULL,
  to_state    TEXT NOT NULL,
  reason      TEXT NOT NULL,
  transitions BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, service_id, to_state, reason)
);
INSERT INTO key_transition_totals (key_id, service_id, to_state, reason, transitions)
  SELECT t.key_id, s.service_id, t.to_state, t.reason, COUNT(*)
  FROM transition_events t JOIN sources s ON s.id = t.source_id
  WHERE t.from_state IS NOT NULL GROUP BY t.key_id, s.service_id, t.to_state, t.reason;

CREATE TABLE probe_totals (
  key_id    BIGINT NOT NULL,
  location  TEXT NOT NULL,
  probes BIGINT NOT NULL DEFAULT 0,
  ok BIGINT NOT NULL DEFAULT 0,
  slow BIGINT NOT NULL DEFAULT 0,
  error BIGINT NOT NULL DEFAULT 0,
  misconfigured BIGINT NOT NULL DEFAULT 0,
  cold BIGINT NOT NULL DEFAULT 0,
  total_ms_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  h0 BIGINT NOT NULL DEFAULT 0,
  h1 BIGINT NOT NULL DEFAULT 0,
  h2 BIGINT NOT NULL DEFAULT 0,
  h3 BIGINT NOT NULL DEFAULT 0,
  h4 BIGINT NOT NULL DEFAULT 0,
  h5 BIGINT NOT NULL DEFAULT 0,
  h6 BIGINT NOT NULL DEFAULT 0,
  h7 BIGINT NOT NULL DEFAULT 0,
  h8 BIGINT NOT NULL DEFAULT 0,
  h9 BIGINT NOT NULL DEFAULT 0,
  h10 BIGINT NOT NULL DEFAULT 0,
  h11 BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, location)
);
INSERT INTO probe_totals (key_id, location, probes, ok, slow, error, misconfigured, cold, total_ms_sum, cost_usd, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11)
  SELECT key_id, location, SUM(probes), SUM(ok), SUM(slow), SUM(error), SUM(misconfigured), SUM(cold), SUM(total_ms_sum), SUM(cost_usd), SUM(h0), SUM(h1), SUM(h2), SUM(h3), SUM(h4), SUM(h5), SUM(h6), SUM(h7), SUM(h8), SUM(h9), SUM(h10), SUM(h11) FROM probe_minutes GROUP BY key_id, location;

CREATE TABLE task_totals (
  operation   TEXT NOT NULL,
  service_id  BIGINT NOT NULL,
  completed BIGINT NOT NULL DEFAULT 0,
  failed BIGINT NOT NULL DEFAULT 0,
  degraded BIGINT NOT NULL DEFAULT 0,
  attempts BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  level0 BIGINT NOT NULL DEFAULT 0,
  level1 BIGINT NOT NULL DEFAULT 0,
  level2 BIGINT NOT NULL DEFAULT 0,
  level3 BIGINT NOT NULL DEFAULT 0,
  level4 BIGINT NOT NULL DEFAULT 0,
  fallback_invoked BIGINT NOT NULL DEFAULT 0,
  fallback_failed BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (operation, service_id)
);
INSERT INTO task_totals (operation, service_id, completed, failed, degraded, attempts, cost_usd, level0, level1, level2, level3, level4, fallback_invoked, fallback_failed)
  SELECT operation, service_id, SUM(completed), SUM(failed), SUM(degraded), SUM(attempts), SUM(cost_usd), SUM(level0), SUM(level1), SUM(level2), SUM(level3), SUM(level4), SUM(fallback_invoked), SUM(fallback_failed) FROM task_minutes GROUP BY operation, service_id;

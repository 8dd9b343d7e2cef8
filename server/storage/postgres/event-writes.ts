import type { ConfigEvent, ProbeEvent, ShadowEvent, TasksEvent, TransitionEvent, WindowEvent } from '@breakerbox/protocol';
import { MINUTE_MS } from '@breakerbox/protocol';
import { histogramJson } from '../histogram.ts';
import { MAX_SAMPLES_PER_KEY_MINUTE, sampleColumns, samplesOf } from '../sample-rows.ts';
import { shadowColumns } from '../shadow-rows.ts';
import type { PgClient } from './pool.ts';

type Kind = 'window' | 'transition' | 'tasks' | 'config' | 'probe' | 'shadow';

/** Column lists and types of the raw event tables (migrations/postgres/001), one UNNEST insert each. */
const TABLES: Record<Kind, { table: string; columns: [string, string][] }> = {
  window: {
    table: 'window_events',
    columns: [['key_id', 'bigint'], ['source_id', 'bigint'], ['start', 'bigint'], ['"end"', 'bigint'], ['calls', 'bigint'], ['ok', 'bigint'],
      ['slow', 'bigint'], ['errors', 'text'], ['rejected', 'bigint'], ['short_circuited', 'bigint'], ['retries', 'bigint'],
      ['cold_excluded', 'bigint'], ['half_open_ok', 'bigint'], ['half_open_failed', 'bigint'], ['latency', 'text'], ['ttft', 'text'],
      ['input_tokens', 'bigint'], ['output_tokens', 'bigint'], ['cost_usd', 'float8']],
  },
  transition: {
    table: 'transition_events',
    columns: [['key_id', 'bigint'], ['source_id', 'bigint'], ['ts', 'bigint'], ['from_state', 'text'], ['to_state', 'text'], ['reason', 'text'],
      ['cooldown_ms', 'bigint'], ['attempt', 'bigint'], ['rate_error', 'float8'], ['rate_slow', 'float8']],
  },
  tasks: {
    table: 'task_events',
    columns: [['source_id', 'bigint'], ['operation', 'text'], ['start', 'bigint'], ['"end"', 'bigint'], ['completed', 'bigint'], ['failed', 'bigint'],
      ['degraded', 'bigint'], ['attempts', 'bigint'], ['cost_usd', 'float8'], ['levels', 'text'], ['fallback_invoked', 'bigint'], ['fallback_failed', 'bigint']],
  },
  config: {
    table: 'config_events',
    columns: [['key_id', 'bigint'], ['source_id', 'bigint'], ['ts', 'bigint'], ['settings', 'text'], ['fallbacks', 'text'], ['warnings', 'text']],
  },
  probe: {
    table: 'probe_events',
    columns: [['key_id', 'bigint'], ['source_id', 'bigint'], ['location', 'text'], ['ts', 'bigint'], ['outcome', 'text'], ['error_class', 'text'],
      ['status', 'bigint'], ['connect_ms', 'float8'], ['ttfb_ms', 'float8'], ['total_ms', 'float8'], ['cold', 'bigint'], ['cost_usd', 'float8'],
      ['trigger', 'text'], ['upstream_request_id', 'text'], ['error_type', 'text'], ['error_code', 'text'], ['message', 'text'],
      ['answer_excerpt', 'text'], ['model_served', 'text'], ['system_fingerprint', 'text']],
  },
  // In SHADOW_COLUMNS order (server/storage/shadow-rows.ts).
  shadow: {
    table: 'shadow_windows',
    columns: [['key_id', 'bigint'], ['source_id', 'bigint'], ['candidate_provider', 'text'], ['candidate_endpoint', 'text'], ['candidate_model', 'text'],
      ['candidate_region', 'text'], ['start', 'bigint'], ['"end"', 'bigint'], ['pairs', 'bigint'], ['dropped', 'bigint'], ['primary_side', 'text'], ['shadow_side', 'text']],
  },
};

const SQL = Object.fromEntries(
  Object.entries(TABLES).map(([kind, t]) => [
    kind,
    `INSERT INTO ${t.table} (${t.columns.map((c) => c[0]).join(', ')})
      SELECT * FROM UNNEST(${t.columns.map((c, i) => `$${i + 1}::${c[1]}[]`).join(', ')})`,
  ]),
) as Record<Kind, string>;

/**
 * Evidence samples, bounded per key and minute: a sample enters when those already stored
 * for its key and minute plus those before it in this statement stay within the cap.
 */
const SAMPLES_SQL = `INSERT INTO call_samples (key_id, source_id, ts, error_class, status, upstream_request_id, sample)
  SELECT q.k, q.s, q.t, q.c, q.st, q.r, q.j FROM (
    SELECT u.*, row_number() OVER (PARTITION BY u.k, u.t - u.t % ${MINUTE_MS} ORDER BY u.n) AS rank
    FROM UNNEST($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::text[]) WITH ORDINALITY AS u(k, s, t, c, st, r, j, n)
  ) q
  WHERE q.rank + (SELECT count(*) FROM call_samples x
    WHERE x.key_id = q.k AND x.ts >= q.t - q.t % ${MINUTE_MS} AND x.ts < q.t - q.t % ${MINUTE_MS} + ${MINUTE_MS}) <= $8`;

/**
 * The raw events of one transaction, gathered column by column so each table is written
 * by one `INSERT … SELECT FROM UNNEST` (one array per column) instead of a statement per
 * event: the fastest bulk form measured (docs/storage.md), and one prepared statement.
 * JSON fields are stored as text, as on SQLite: JSONB parses every value at insert (docs/storage.md).
 */
export class EventColumns {
  private readonly columns = Object.fromEntries(
    Object.entries(TABLES).map(([kind, t]) => [kind, t.columns.map(() => [] as unknown[])]),
  ) as Record<Kind, unknown[][]>;

  private push(kind: Kind, values: unknown[]): void {
    const cols = this.columns[kind];
    for (let i = 0; i < values.length; i++) cols[i]!.push(values[i]);
  }

  private readonly sampleCols: unknown[][] = Array.from({ length: 7 }, () => []);

  window(keyId: number, sourceId: number, e: WindowEvent): void {
    for (const sample of samplesOf(e)) {
      const values = [keyId, sourceId, ...sampleColumns(sample)];
      for (let i = 0; i < values.length; i++) this.sampleCols[i]!.push(values[i]);
    }
    this.push('window', [keyId, sourceId, e.start, e.end, e.calls, e.ok, e.slow, JSON.stringify(e.errors), e.rejected,
      e.short_circuited, e.retries, e.cold_excluded, e.half_open.ok, e.half_open.failed, histogramJson(e.latency_ms),
      e.ttft_ms ? histogramJson(e.ttft_ms) : null, e.input_tokens, e.output_tokens, e.cost_usd]);
  }

  transition(keyId: number, sourceId: number, e: TransitionEvent): void {
    this.push('transition', [keyId, sourceId, e.ts, e.from, e.to, e.reason, e.cooldown_ms ?? null, e.attempt ?? null,
      e.rates?.error ?? null, e.rates?.slow ?? null]);
  }

  tasks(sourceId: number, e: TasksEvent): void {
    this.push('tasks', [sourceId, e.operation, e.start, e.end, e.completed, e.failed, e.degraded, e.attempts, e.cost_usd,
      JSON.stringify(e.levels), e.fallback.invoked, e.fallback.failed]);
  }

  config(keyId: number, sourceId: number, e: ConfigEvent): void {
    this.push('config', [keyId, sourceId, e.ts, JSON.stringify(e.settings), JSON.stringify(e.fallbacks), JSON.stringify(e.warnings)]);
  }

  probe(keyId: number, sourceId: number, e: ProbeEvent): void {
    this.push('probe', [keyId, sourceId, e.location, e.ts, e.outcome, e.error_class ?? null, e.status ?? null,
      e.latency_ms.connect ?? null, e.latency_ms.ttfb ?? null, e.latency_ms.total, e.cold ? 1 : 0, e.cost_usd ?? null, e.trigger ?? null,
      e.upstream_request_id ?? null, e.error_type ?? null, e.error_code ?? null, e.message ?? null,
      e.answer_excerpt ?? null, e.model_served ?? null, e.system_fingerprint ?? null]);
  }

  shadow(keyId: number, sourceId: number, e: ShadowEvent): void {
    this.push('shadow', shadowColumns(keyId, sourceId, e));
  }

  /** Writes what was gathered; call inside the transaction. */
  async write(client: PgClient): Promise<void> {
    for (const kind of Object.keys(TABLES) as Kind[]) {
      const cols = this.columns[kind];
      if (cols[0]!.length === 0) continue;
      await client.query({ name: `events_${kind}`, text: SQL[kind], values: cols });
    }
    if (this.sampleCols[0]!.length > 0) {
      await client.query({ name: 'events_samples', text: SAMPLES_SQL, values: [...this.sampleCols, MAX_SAMPLES_PER_KEY_MINUTE] });
    }
  }
}

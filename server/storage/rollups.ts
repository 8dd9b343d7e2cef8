import {
  ERROR_CLASSES, KEY_COLUMNS, ROLLUP_BUCKETS, PROBE_COLUMNS, SOURCE_COLUMNS, TASK_COLUMNS, TASK_KEY_COLUMNS, minuteOf,
  type ProbeEvent, type TasksEvent, type TransitionEvent, type WindowEvent,
} from '@breakerbox/protocol';
import { addHistogram, addValue } from './histogram.ts';

const KEY_COUNTERS = KEY_COLUMNS;
const TASK_COUNTERS = TASK_COLUMNS;
const TASK_KEY_COUNTERS = TASK_KEY_COLUMNS;
const SOURCE_COUNTERS = SOURCE_COLUMNS;
const PROBE_COUNTERS = PROBE_COLUMNS;

function upsertSql(table: string, ids: readonly string[], counters: readonly string[]): string {
  const cols = [...ids, ...counters];
  return `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
    ON CONFLICT (${ids.join(', ')}) DO UPDATE SET ${counters.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;
}

type Row = { ids: (number | string)[]; values: number[] };

/** Where each taxonomy class is counted in a `key_minutes` row. */
const ERROR_AT: ReadonlyMap<string, number> = new Map(ERROR_CLASSES.map((c, i) => [c, 3 + i]));
const AFTER_ERRORS = 3 + ERROR_CLASSES.length;
const TRANSITIONS_AT = KEY_COUNTERS.indexOf('transitions');
const HISTOGRAM_AT = KEY_COUNTERS.indexOf('h0');
/** Where a probe row counts its wrong answers (issue 39): not ok, and no transport error. */
const WRONG_ANSWER = PROBE_COUNTERS.indexOf('wrong_answer');

/**
 * Rows of one rollup table keyed by (minute, key id, third id), filed under the key id so
 * a window finds its row with one numeric lookup and a scan of the batch's few minutes,
 * instead of building and hashing a string per event.
 */
class KeyedRows {
  private readonly byKey = new Map<number, Row[]>();

  constructor(private readonly width: number) {}

  values(minute: number, keyId: number, third: number | string): number[] {
    let rows = this.byKey.get(keyId);
    if (!rows) this.byKey.set(keyId, (rows = []));
    for (const row of rows) if (row.ids[0] === minute && row.ids[2] === third) return row.values;
    const row: Row = { ids: [minute, keyId, third], values: new Array<number>(this.width).fill(0) };
    rows.push(row);
    return row.values;
  }

  *rows(): IterableIterator<Row> {
    for (const rows of this.byKey.values()) yield* rows;
  }
}

/**
 * Accumulates one batch's contribution to the per-minute rollups in memory, so that a
 * batch of 1,000 windows over 50 keys costs 50 upserts, not 1,000.
 */
export class RollupAccumulator {
  private readonly keyRows = new KeyedRows(KEY_COUNTERS.length);
  private readonly taskRows = new Map<string, Row>();
  private readonly taskKeyRows = new KeyedRows(TASK_KEY_COUNTERS.length);
  private readonly probeRows = new KeyedRows(PROBE_COUNTERS.length);
  /** Per (minute, key, source): calls, failed, slow, rejected, retries, last window end. */
  private readonly keySources = new KeyedRows(SOURCE_COUNTERS.length);
  /** Per (key, service, to state, reason): transitions, for the all-time totals. */
  private readonly transitionTotals = new Map<string, Row>();

  private row(map: Map<string, Row>, ids: (number | string)[], width: number): number[] {
    const id = ids.join('\u0000');
    let row = map.get(id);
    if (!row) {
      row = { ids, values: new Array<number>(width).fill(0) };
      map.set(id, row);
    }
    return row.values;
  }

  addWindow(keyId: number, serviceId: number, sourceId: number, e: WindowEvent): void {
    const minute = minuteOf(e.start);
    const v = this.keyRows.values(minute, keyId, serviceId);
    v[0]! += e.calls;
    v[1]! += e.ok;
    v[2]! += e.slow;
    let failed = 0;
    const errors = e.errors as Record<string, number | undefined>;
    for (const cls in errors) {
      const n = errors[cls] ?? 0;
      failed += n;
      const column = ERROR_AT.get(cls);
      if (column !== undefined) v[column]! += n;
    }
    let at = AFTER_ERRORS;
    v[at++]! += e.rejected;
    v[at++]! += e.short_circuited;
    v[at++]! += e.retries;
    v[at++]! += e.cold_excluded;
    v[at++]! += e.half_open.ok;
    v[at++]! += e.half_open.failed;
    v[at++]! += e.input_tokens;
    v[at++]! += e.output_tokens;
    v[at++]! += e.cost_usd;
    v[at]! += 1; // windows
    addHistogram(v, e.latency_ms, HISTOGRAM_AT);
    if (e.ttft_ms) addHistogram(v, e.ttft_ms, HISTOGRAM_AT + ROLLUP_BUCKETS);
    const s = this.keySources.values(minute, keyId, sourceId);
    s[0]! += e.calls;
    s[1]! += failed;
    s[2]! += e.slow;
    s[3]! += e.rejected;
    s[4]! += e.retries;
    if (e.end > s[5]!) s[5] = e.end;
  }

  addTransition(keyId: number, serviceId: number, sourceId: number, e: TransitionEvent): void {
    const minute = minuteOf(e.ts);
    const v = this.keyRows.values(minute, keyId, serviceId);
    const at = TRANSITIONS_AT;
    // A breaker's first report (from: null) is not a change of state: counting it would show
    // every freshly started instance as a transition, i.e. flapping on a healthy key.
    if (e.from !== null) {
      v[at]! += 1;
      this.row(this.transitionTotals, [keyId, serviceId, e.to, e.reason], 1)[0]! += 1;
    }
    if (e.to === 'open' || e.to === 'forced_open') v[at + 1]! += 1;
    this.keySources.values(minute, keyId, sourceId);
  }

  addTasks(serviceId: number, e: TasksEvent, keyId?: number): void {
    if (keyId !== undefined) {
      const k = this.taskKeyRows.values(minuteOf(e.start), keyId, serviceId);
      k[0]! += e.completed;
      k[1]! += e.failed;
      k[2]! += e.fallback.invoked;
      k[3]! += e.fallback.failed;
    }
    const v = this.row(this.taskRows, [minuteOf(e.start), e.operation, serviceId], TASK_COUNTERS.length);
    v[0]! += e.completed;
    v[1]! += e.failed;
    v[2]! += e.degraded;
    v[3]! += e.attempts;
    v[4]! += e.cost_usd;
    for (let level = 0; level <= 4; level++) v[5 + level]! += e.levels[String(level) as '0'] ?? 0;
    v[10]! += e.fallback.invoked;
    v[11]! += e.fallback.failed;
  }

  addProbe(keyId: number, e: ProbeEvent): void {
    const v = this.probeRows.values(minuteOf(e.ts), keyId, e.location);
    if (e.cold) {
      v[5]! += 1;
    } else {
      v[0]! += 1;
      if (e.outcome === 'ok') v[1]! += 1;
      else if (e.outcome === 'slow') v[2]! += 1;
      else if (e.outcome === 'wrong_answer') v[WRONG_ANSWER]! += 1;
      else v[3]! += 1;
      if (e.error_class === 'bad_request' || e.error_class === 'auth' || e.error_class === 'context_length') v[4]! += 1;
      v[6]! += e.latency_ms.total;
      addValue(v, e.latency_ms.total, 8);
    }
    v[7]! += e.cost_usd ?? 0;
  }

  /** Writes the accumulated rows, and adds them to the all-time totals; call inside the batch's transaction. */
  flush(statements: RollupStatements): void {
    for (const row of this.keyRows.rows()) statements.key.run(...row.ids, ...row.values);
    for (const row of this.taskRows.values()) statements.task.run(...row.ids, ...row.values);
    for (const row of this.taskKeyRows.rows()) statements.taskKey.run(...row.ids, ...row.values);
    for (const row of this.probeRows.rows()) statements.probe.run(...row.ids, ...row.values);
    // Totals: the same rows without their minute (ids[0]), merged first so a batch spanning two minutes upserts once.
    for (const row of withoutMinute(this.keyRows.rows()).values()) statements.keyTotal.run(...row.ids, ...row.values);
    for (const row of withoutMinute(this.taskRows.values()).values()) statements.taskTotal.run(...row.ids, ...row.values);
    for (const row of withoutMinute(this.probeRows.rows()).values()) statements.probeTotal.run(...row.ids, ...row.values);
    for (const row of this.keySources.rows()) statements.keySource.run(...row.ids, ...row.values);
    for (const row of this.transitionTotals.values()) statements.transitionTotal.run(...row.ids, ...row.values);
  }
}

/** Rows keyed by [minute, ...ids] summed over their minutes, keyed by the remaining ids. */
function withoutMinute(rows: Iterable<Row>): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const row of rows) {
    const ids = row.ids.slice(1);
    const id = ids.join('\u0000');
    const into = out.get(id);
    if (!into) out.set(id, { ids, values: row.values.slice() });
    else for (let i = 0; i < row.values.length; i++) into.values[i]! += row.values[i]!;
  }
  return out;
}

/** Prepared upserts for the rollup tables. */
export interface RollupStatements {
  key: { run(...args: unknown[]): unknown };
  task: { run(...args: unknown[]): unknown };
  taskKey: { run(...args: unknown[]): unknown };
  probe: { run(...args: unknown[]): unknown };
  keySource: { run(...args: unknown[]): unknown };
  /** All-time totals (migration 006), read by /metrics as counters. */
  keyTotal: { run(...args: unknown[]): unknown };
  taskTotal: { run(...args: unknown[]): unknown };
  probeTotal: { run(...args: unknown[]): unknown };
  transitionTotal: { run(...args: unknown[]): unknown };
}

/**
 * Prepares the rollup upserts once per database handle (SQLite's; PostgreSQL runs the same
 * rows as multi-row upserts of its own). Typed by what it calls, so this file stays engine-neutral.
 */
export function prepareRollupStatements(db: { prepare(sql: string): { run(...args: unknown[]): unknown } }): RollupStatements {
  return {
    key: db.prepare(upsertSql('key_minutes', ['minute', 'key_id', 'service_id'], KEY_COUNTERS)),
    task: db.prepare(upsertSql('task_minutes', ['minute', 'operation', 'service_id'], TASK_COUNTERS)),
    taskKey: db.prepare(upsertSql('task_key_minutes', ['minute', 'key_id', 'service_id'], TASK_KEY_COUNTERS)),
    probe: db.prepare(upsertSql('probe_minutes', ['minute', 'key_id', 'location'], PROBE_COUNTERS)),
    keyTotal: db.prepare(upsertSql('key_totals', ['key_id', 'service_id'], KEY_COUNTERS)),
    taskTotal: db.prepare(upsertSql('task_totals', ['operation', 'service_id'], TASK_COUNTERS)),
    probeTotal: db.prepare(upsertSql('probe_totals', ['key_id', 'location'], PROBE_COUNTERS)),
    transitionTotal: db.prepare(upsertSql('key_transition_totals', ['key_id', 'service_id', 'to_state', 'reason'], ['transitions'])),
    keySource: db.prepare(`INSERT INTO key_minute_sources (minute, key_id, source_id, ${SOURCE_COUNTERS.join(', ')})
      VALUES (?, ?, ?, ${SOURCE_COUNTERS.map(() => '?').join(', ')})
      ON CONFLICT (minute, key_id, source_id) DO UPDATE SET
      ${SOURCE_COUNTERS.slice(0, -1).map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, last_end = max(last_end, excluded.last_end)`),
  };
}

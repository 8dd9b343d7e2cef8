/**
 * Resilience events as OTLP log records → protocol v1 events, by the convention of
 * docs/otlp.md: breaker state changes (`circuitbreaker.state_change`, with the
 * `circuitbreaker.*` attributes of semantic-conventions issue #2355) become `transition`
 * events; rejections become the `rejected` / `short_circuited` counts of a `window`; task
 * outcomes and fallbacks become `tasks` events. Other log records are not ours and are
 * ignored.
 */
import type { BreakerKey, BreakerStateName, TasksEvent, TelemetryBatch, TelemetryEvent, TransitionEvent, TransitionReason, WindowEvent } from '@breakerbox/protocol';
import { DEFAULT_LATENCY_BOUNDS_MS, keyId, minuteOf } from '@breakerbox/protocol';
import { emptyCounts } from '../storage/histogram.ts';
import type { TimeBounds } from '../ingest/validate-batch.ts';
import { keyFrom, sourceFrom } from './key-mapping.ts';
import type { Attributes, LogRecord, ResourceLogs } from './model.ts';
import { Rejections } from './rejections.ts';

/** The event names of the convention. */
export const EVENTS = {
  transition: 'circuitbreaker.state_change',
  rejection: 'breakerbox.rejection',
  task: 'breakerbox.task',
  fallback: 'breakerbox.fallback',
} as const;

const KNOWN = new Set<string>(Object.values(EVENTS));

const REASONS: ReadonlySet<string> = new Set([
  'created', 'error_rate', 'slow_calls', 'rejections', 'probe_failed', 'probes_succeeded', 'cooldown_elapsed', 'manual',
]);

/** A breaker state as resilience libraries spell it (`HALF_OPEN`, `half-open`, `isolated`, …). */
export function stateFrom(value: unknown): BreakerStateName | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.trim().toLowerCase().replace(/[-\s]/g, '_');
  if (s === 'closed' || s === 'open' || s === 'forced_open') return s;
  if (s === 'half_open' || s === 'halfopen') return 'half_open';
  if (s === 'isolated' || s === 'forced_open_state') return 'forced_open';
  return undefined;
}

/** The reason when the record names none: what a state change of that shape means. */
function defaultReason(from: BreakerStateName | null, to: BreakerStateName): TransitionReason {
  if (from === null) return 'created';
  if (to === 'forced_open') return 'manual';
  if (to === 'half_open') return 'cooldown_elapsed';
  if (to === 'closed') return from === 'half_open' ? 'probes_succeeded' : 'manual';
  return from === 'half_open' ? 'probe_failed' : 'error_rate';
}

const count = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fallback);
const money = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const flag = (v: unknown): boolean => v === true || v === 'true' || v === 1;
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** What one OTLP logs request becomes. */
export interface MappedLogs {
  batches: TelemetryBatch[];
  rejected: Rejections;
  /** Log records per key id that went into the batches (what refusing that key refuses). */
  pointsPerKey: Map<string, number>;
}

/** Maps decoded log records to batches (one per resource); `now` stands in for a record without a time. */
export function logsToEvents(resources: ResourceLogs[], bounds: TimeBounds, now: number): MappedLogs {
  const rejected = new Rejections();
  const batches: TelemetryBatch[] = [];
  const pointsPerKey = new Map<string, number>();
  for (const rl of resources) {
    const events: TelemetryEvent[] = [];
    const windows = new Map<string, WindowEvent>();
    const tasks = new Map<string, TasksEvent>();
    for (const record of rl.records) {
      if (!KNOWN.has(record.eventName)) continue;
      const ts = record.timeMs || now;
      if (ts > bounds.newest || ts < bounds.oldest) {
        rejected.add(`${record.eventName} records whose time is outside the accepted span`);
        continue;
      }
      const problem = mapRecord(record, ts, record.attributes, { events, windows, tasks, pointsPerKey });
      if (problem) rejected.add(`${record.eventName} records ${problem}`);
    }
    events.push(...windows.values(), ...tasks.values());
    if (events.length > 0) batches.push({ batch_id: '', source: sourceFrom(rl.resource), events });
  }
  return { batches, rejected, pointsPerKey };
}

interface Sink {
  events: TelemetryEvent[];
  windows: Map<string, WindowEvent>;
  tasks: Map<string, TasksEvent>;
  pointsPerKey: Map<string, number>;
}

const counted = (sink: Sink, key: BreakerKey) => {
  const id = keyId(key);
  sink.pointsPerKey.set(id, (sink.pointsPerKey.get(id) ?? 0) + 1);
};

/** Adds one record's contribution; returns why it was refused, if it was. */
function mapRecord(record: LogRecord, ts: number, a: Attributes, sink: Sink): string | undefined {
  switch (record.eventName) {
    case EVENTS.transition: {
      const key = keyFrom(a);
      if (typeof key === 'string') return `with ${key}`;
      const to = stateFrom(a['circuitbreaker.state']);
      if (!to) return 'without a known circuitbreaker.state (closed, open, half_open, forced_open)';
      const from = a['breakerbox.previous_state'] === undefined ? null : (stateFrom(a['breakerbox.previous_state']) ?? null);
      const named = text(a['breakerbox.reason']);
      const event: TransitionEvent = { type: 'transition', ts, key, from, to, reason: named && REASONS.has(named) ? (named as TransitionReason) : defaultReason(from, to) };
      if (a['breakerbox.cooldown_ms'] !== undefined) event.cooldown_ms = count(a['breakerbox.cooldown_ms'], 0);
      if (a['breakerbox.attempt'] !== undefined) event.attempt = count(a['breakerbox.attempt'], 0);
      sink.events.push(event);
      counted(sink, key);
      return undefined;
    }
    case EVENTS.rejection: {
      const key = keyFrom(a);
      if (typeof key === 'string') return `with ${key}`;
      const w = windowAt(sink.windows, key, ts);
      const n = count(a['breakerbox.count'], 1);
      if (text(a['breakerbox.rejection.by']) === 'circuitbreaker') w.short_circuited += n;
      else w.rejected += n;
      counted(sink, key);
      return undefined;
    }
    case EVENTS.task: {
      const t = tasksAt(sink.tasks, a, ts);
      if (!t) return 'without breakerbox.operation';
      const outcome = text(a['breakerbox.task.outcome']) ?? 'completed';
      if (outcome !== 'completed' && outcome !== 'failed') return 'whose breakerbox.task.outcome is not completed or failed';
      const level = count(a['breakerbox.task.level'], 0);
      if (outcome === 'completed') {
        t.completed += 1;
        if (level <= 4) t.levels[String(level) as '0'] = (t.levels[String(level) as '0'] ?? 0) + 1;
      } else {
        t.failed += 1;
      }
      if (flag(a['breakerbox.task.degraded']) || (outcome === 'completed' && level === 4)) t.degraded += 1;
      t.attempts += count(a['breakerbox.task.attempts'], 1);
      t.cost_usd += money(a['breakerbox.cost_usd']);
      if (flag(a['breakerbox.fallback.invoked']) || level > 0) t.fallback.invoked += 1;
      if (flag(a['breakerbox.fallback.failed'])) t.fallback.failed += 1;
      return undefined;
    }
    case EVENTS.fallback: {
      const t = tasksAt(sink.tasks, a, ts);
      if (!t) return 'without breakerbox.operation';
      t.fallback.invoked += 1;
      if (flag(a['breakerbox.fallback.failed'])) t.fallback.failed += 1;
      return undefined;
    }
  }
  return undefined;
}

/** The rejections window of a key for the minute of `ts`. */
function windowAt(windows: Map<string, WindowEvent>, key: BreakerKey, ts: number): WindowEvent {
  const id = `${keyId(key)}\u0000${minuteOf(ts)}`;
  let w = windows.get(id);
  if (!w) {
    w = {
      type: 'window', start: ts, end: ts, key, calls: 0, ok: 0, slow: 0, errors: {}, rejected: 0, short_circuited: 0, retries: 0,
      cold_excluded: 0, half_open: { ok: 0, failed: 0 }, latency_ms: { bounds: DEFAULT_LATENCY_BOUNDS_MS as number[], counts: emptyCounts() },
      input_tokens: 0, output_tokens: 0, cost_usd: 0,
    };
    windows.set(id, w);
  }
  w.start = Math.min(w.start, ts);
  w.end = Math.max(w.end, ts);
  return w;
}

/** The tasks event of an operation for the minute of `ts`, or undefined without an operation. */
function tasksAt(tasks: Map<string, TasksEvent>, a: Attributes, ts: number): TasksEvent | undefined {
  const operation = text(a['breakerbox.operation']);
  if (!operation) return undefined;
  const id = `${operation.slice(0, 200)}\u0000${minuteOf(ts)}`;
  let t = tasks.get(id);
  if (!t) {
    t = { type: 'tasks', start: ts, end: ts, operation: operation.slice(0, 200), completed: 0, failed: 0, degraded: 0, attempts: 0, cost_usd: 0, levels: {}, fallback: { invoked: 0, failed: 0 } };
    tasks.set(id, t);
  }
  t.start = Math.min(t.start, ts);
  t.end = Math.max(t.end, ts);
  return t;
}

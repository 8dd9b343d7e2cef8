import type { BreakerKey, DrillKind, TelemetryEvent } from '@breakerbox/protocol';
import type { DrillBatchRecord, DrillRunRecord } from './parts/drills.ts';

/** A `drill_runs` row as both engines return it (JSON columns as text; PostgreSQL BIGINTs already parsed to numbers by the pool). */
export interface DrillRunRow {
  id: string;
  service: string;
  kinds: string;
  keys: string | null;
  step_ms: number | string;
  issued_at: number | string;
  ends_at: number | string;
  stopped_at: number | string | null;
  stopped_by: string | null;
  created_by: string | null;
  updated_at: number | string;
  report: string | null;
  judged_at: number | string | null;
}

/** The insert's column list. */
export const DRILL_RUN_COLUMNS = 'id, service, kinds, keys, step_ms, issued_at, ends_at, stopped_at, stopped_by, created_by, updated_at, report, judged_at';

/** The columns of an insert, in order (both engines bind this list). */
export function drillRunValues(r: DrillRunRecord): unknown[] {
  return [
    r.id, r.service, JSON.stringify(r.kinds), r.keys ? JSON.stringify(r.keys) : null, r.stepMs, r.issuedAt, r.endsAt,
    r.stoppedAt, r.stoppedBy, r.createdBy, r.updatedAt, r.report === null ? null : JSON.stringify(r.report), r.judgedAt,
  ];
}

const num = (v: number | string): number => Number(v);
const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** A row as the part returns it. */
export function drillRunRecord(r: DrillRunRow): DrillRunRecord {
  return {
    id: r.id,
    service: r.service,
    kinds: JSON.parse(r.kinds) as DrillKind[],
    keys: r.keys === null ? null : (JSON.parse(r.keys) as BreakerKey[]),
    stepMs: num(r.step_ms),
    issuedAt: num(r.issued_at),
    endsAt: num(r.ends_at),
    stoppedAt: numOrNull(r.stopped_at),
    stoppedBy: r.stopped_by,
    createdBy: r.created_by,
    updatedAt: num(r.updated_at),
    report: r.report === null ? null : (JSON.parse(r.report) as unknown),
    judgedAt: numOrNull(r.judged_at),
  };
}

/** A `drill_batches` row (the columns a read selects). */
export interface DrillBatchRow {
  service: string;
  instance: string;
  received_at: number | string;
  events: string;
}

/** A batch row as the part returns it. */
export const drillBatchRecord = (r: DrillBatchRow): DrillBatchRecord => ({
  service: r.service,
  instance: r.instance,
  receivedAt: num(r.received_at),
  events: JSON.parse(r.events) as TelemetryEvent[],
});

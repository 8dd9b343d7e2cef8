/**
 * Passthrough counts (issue 35: requests an SDK forwarded unprotected, `passthrough` of a
 * batch): the SQL, engine-neutral (`?` placeholders; PostgreSQL numbers them), and the merge
 * of one transaction's batches, so each row is upserted once per transaction (PostgreSQL
 * refuses to touch a row twice in one statement) and in one order across collectors.
 */
import { minuteOf, type PassthroughCount } from '@breakerbox/protocol';

/** Adds to a minute's count; the latest reason reported replaces the stored one. */
export const PASSTHROUGH_MINUTE_UPSERT = `INSERT INTO passthrough_minutes (minute, service_id, host, path_family, method, requests, why)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (minute, service_id, host, path_family, method) DO UPDATE SET
    requests = passthrough_minutes.requests + EXCLUDED.requests,
    why = COALESCE(EXCLUDED.why, passthrough_minutes.why)`;

/** Adds to the all-time count of a service, host and path family (what `/metrics` exports). */
export const PASSTHROUGH_TOTAL_UPSERT = `INSERT INTO passthrough_totals (service_id, host, path_family, requests)
  VALUES (?, ?, ?, ?)
  ON CONFLICT (service_id, host, path_family) DO UPDATE SET requests = passthrough_totals.requests + EXCLUDED.requests`;

/** Most rows a range read or a totals read answers (the largest counts first). */
export const MAX_PASSTHROUGH_ROWS = 500;

/** Counts per service, host, path family and method over `[from, to)` (minutes of arrival), largest first. */
export const PASSTHROUGH_RANGE = `SELECT v.name AS service, p.host, p.path_family, p.method, SUM(p.requests) AS requests,
    MAX(p.why) AS why, MAX(p.minute) AS last_minute
  FROM passthrough_minutes p JOIN services v ON v.id = p.service_id
  WHERE p.minute >= ? AND p.minute < ?
  GROUP BY v.name, p.host, p.path_family, p.method
  ORDER BY SUM(p.requests) DESC
  LIMIT ${MAX_PASSTHROUGH_ROWS}`;

/** All-time counts per service, host and path family, largest first. */
export const PASSTHROUGH_TOTALS = `SELECT v.name AS service, t.host, t.path_family, t.requests
  FROM passthrough_totals t JOIN services v ON v.id = t.service_id
  ORDER BY t.requests DESC
  LIMIT ${MAX_PASSTHROUGH_ROWS}`;

/** Requests forwarded unprotected by one service to one host, path family and method over a range. */
export interface PassthroughRow {
  service: string;
  host: string;
  pathFamily: string;
  method: string;
  requests: number;
  /** The latest reason reported, when one was. */
  why: string | null;
  /** Start of the latest minute they arrived in (ms). */
  lastMinute: number;
}

/** All-time requests forwarded unprotected by one service to one host and path family. */
export interface PassthroughTotalRow {
  service: string;
  host: string;
  pathFamily: string;
  requests: number;
}

type Num = number | string;

/** Range rows as the engines answer them (PostgreSQL sums as text), ordered largest first, then by name. */
export function passthroughRowsOf(rows: readonly { service: string; host: string; path_family: string; method: string; requests: Num; why: string | null; last_minute: Num }[]): PassthroughRow[] {
  return rows
    .map((r) => ({ service: r.service, host: r.host, pathFamily: r.path_family, method: r.method, requests: Number(r.requests), why: r.why, lastMinute: Number(r.last_minute) }))
    .sort((a, b) => b.requests - a.requests || cmp(a.service, b.service) || cmp(a.host, b.host) || cmp(a.pathFamily, b.pathFamily) || cmp(a.method, b.method));
}

/** Totals rows as the engines answer them, ordered by service, host, path family (a stable `/metrics` page). */
export function passthroughTotalsOf(rows: readonly { service: string; host: string; path_family: string; requests: Num }[]): PassthroughTotalRow[] {
  return rows
    .map((r) => ({ service: r.service, host: r.host, pathFamily: r.path_family, requests: Number(r.requests) }))
    .sort((a, b) => cmp(a.service, b.service) || cmp(a.host, b.host) || cmp(a.pathFamily, b.pathFamily));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One transaction's passthrough counts, merged per row. */
export class PassthroughAccumulator {
  private readonly minutes = new Map<string, unknown[]>();
  private readonly totals = new Map<string, unknown[]>();

  /** Adds a batch's `passthrough` (if any) for `serviceId`, in the minute it arrived in. */
  add(serviceId: number, receivedAt: number, counts: readonly PassthroughCount[] | undefined): void {
    if (!counts) return;
    const minute = minuteOf(receivedAt);
    for (const c of counts) {
      const m = `${minute}\u0000${serviceId}\u0000${c.host}\u0000${c.path_family}\u0000${c.method}`;
      const row = this.minutes.get(m);
      if (row) {
        (row[5] as number) += c.count;
        if (c.why !== undefined) row[6] = c.why;
      } else this.minutes.set(m, [minute, serviceId, c.host, c.path_family, c.method, c.count, c.why ?? null]);
      const t = `${serviceId}\u0000${c.host}\u0000${c.path_family}`;
      const total = this.totals.get(t);
      if (total) (total[3] as number) += c.count;
      else this.totals.set(t, [serviceId, c.host, c.path_family, c.count]);
    }
  }

  /** The minute upserts' arguments, in primary-key order (PostgreSQL locks rows in one order). */
  minuteRows(): unknown[][] {
    return [...this.minutes].sort((a, b) => cmp(a[0], b[0])).map(([, r]) => r);
  }

  /** The totals upserts' arguments, in primary-key order. */
  totalRows(): unknown[][] {
    return [...this.totals].sort((a, b) => cmp(a[0], b[0])).map(([, r]) => r);
  }
}

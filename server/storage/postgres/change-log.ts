import { minuteOf, type TelemetryEvent } from '@breakerbox/protocol';
import { MINUTE_TABLES } from '../change-feed.ts';
import type { ChangeKind, ChangeLogPart, ChangeLogRead, ChangeRow } from '../parts/change-log.ts';
import type { PgClient, PgPool } from './pool.ts';

/** How long change-log rows are kept at least: a reader that has not read for longer may find its cursor pruned (then it reads everything). */
export const CHANGE_LOG_KEEP_MS = 10 * 60_000;


const SQL = {
  // One statement per transaction; every row carries the transaction's own id.
  keys: `INSERT INTO change_log (xid, key_id, kind, minute, ts)
    SELECT pg_current_xact_id(), * FROM UNNEST($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])`,
  global: 'INSERT INTO change_log (xid, kind) VALUES (pg_current_xact_id(), $1)',
  // One statement, one snapshot: its xmin, the horizon and the rows are read together. Every
  // transaction below that xmin had ended (committed and visible here, or rolled back) when the
  // snapshot was taken; one that had not has an id >= it, or gets one later, and is read next time.
  // Transactions read already ($2) are left out; the rows are folded per key (and per global
  // kind) here, so a pass receives one row per key however many transactions wrote it; the ids
  // read at or above the new xmin come back to be left out next time.
  read: `WITH s AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x, (SELECT below FROM change_log_horizon WHERE id = 1) AS h),
    l AS (SELECT c.* FROM change_log c WHERE c.xid >= $1::xid8 AND NOT (c.xid = ANY ($2::xid8[]))),
    above AS (SELECT coalesce(array_agg(DISTINCT l.xid::text), '{}') AS xids FROM l, s WHERE l.xid >= s.x),
    g AS (SELECT l.key_id, CASE WHEN l.key_id IS NULL THEN min(l.kind) WHEN bool_or(l.kind = 'probe') THEN 'probe' ELSE 'key' END AS kind,
      min(l.minute) AS minute, max(l.ts) AS ts FROM l GROUP BY l.key_id, CASE WHEN l.key_id IS NULL THEN l.kind END)
    SELECT s.x::text AS x, s.h::text AS h, above.xids, g.kind, g.minute, g.ts, k.provider, k.endpoint, k.model, k.region
    FROM s CROSS JOIN above LEFT JOIN g ON TRUE LEFT JOIN keys k ON k.id = g.key_id ORDER BY g.kind, g.key_id`,
  xmin: 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x',
  // Deleted and the horizon moved in one statement: no reader sees rows gone without the horizon that says so.
  prune: `WITH d AS (DELETE FROM change_log WHERE xid < $1::xid8)
    UPDATE change_log_horizon SET below = $1::xid8 WHERE id = 1 AND below < $1::xid8`,
};

/**
 * The change-log rows of one ingest transaction: per key, the earliest minute its events
 * touched, the latest event time and whether a probe result was among them (one row per key,
 * as the in-process feed files them); a `tasks` row when fallback figures were written.
 */
export class ChangeLogRows {
  private readonly keys = new Map<number, { minute: number; ts: number; probe: boolean }>();
  private tasks = false;

  add(keyId: number | undefined, e: TelemetryEvent): void {
    if (e.type === 'tasks') {
      this.tasks = true;
      return;
    }
    if (keyId === undefined) return;
    const ts = 'ts' in e ? e.ts : e.end;
    const minute = minuteOf(Math.min(ts, 'start' in e ? e.start : Infinity));
    const seen = this.keys.get(keyId);
    if (!seen) this.keys.set(keyId, { minute, ts, probe: e.type === 'probe' });
    else {
      seen.minute = Math.min(seen.minute, minute);
      seen.ts = Math.max(seen.ts, ts);
      seen.probe ||= e.type === 'probe';
    }
  }

  /** Appends the rows; call inside the transaction that wrote the data. */
  async write(client: PgClient): Promise<void> {
    if (this.keys.size > 0) {
      const ids = [...this.keys.keys()];
      const rows = [...this.keys.values()];
      await client.query({
        name: 'change_log_keys', text: SQL.keys,
        values: [ids, rows.map((r) => (r.probe ? 'probe' : 'key')), rows.map((r) => r.minute), rows.map((r) => r.ts)],
      });
    }
    if (this.tasks) await appendGlobal(client, 'tasks');
  }
}

/** Appends one global row (`tasks`, `hour`, `suspicion`, `prune`…) in `client`'s transaction (or on its own). */
export async function appendGlobal(client: PgClient | PgPool, kind: ChangeKind): Promise<void> {
  await client.query({ name: 'change_log_global', text: SQL.global, values: [kind] });
}

const xidLess = (a: string, b: string) => BigInt(a) < BigInt(b);

/**
 * This process's reader of the change log. The cursor is the snapshot xmin of the previous
 * read: rows at or above it are read again next time unless their transaction was already
 * read (a transaction's rows become visible together), so nothing is missed and nothing is
 * applied twice. The first read only sets the cursor (reports `reset`: nothing before it is known).
 */
export function createChangeLogReader(pool: PgPool): ChangeLogPart {
  let cursor: string | null = null;
  // Transactions read already whose id is at or above the cursor.
  let seen: string[] = [];
  return {
    async read(): Promise<ChangeLogRead> {
      type R = { x: string; h: string; xids: string[]; kind: ChangeKind | null; minute: number | null; ts: number | null; provider: string | null; endpoint: string; model: string; region: string };
      const result = (await pool.query<R>({ name: 'change_log_read', text: SQL.read, values: [cursor, seen] })).rows;
      const { x, h, xids } = result[0]!;
      const reset = cursor === null || xidLess(cursor, h);
      const rows: ChangeRow[] = [];
      for (const r of result) {
        if (r.kind === null) continue;
        rows.push({ kind: r.kind, key: r.provider === null ? null : { provider: r.provider, endpoint: r.endpoint, model: r.model, region: r.region }, minute: r.minute, ts: r.ts });
      }
      seen = [...seen.filter((xid) => !xidLess(xid, x)), ...xids];
      cursor = x;
      return { rows, reset };
    },
  };
}

/**
 * What the leader's pruner adds on PostgreSQL: a `prune` row when the rules deleted anything
 * (`prune_minutes` when per-minute rollup rows went: the kept minutes must be read again),
 * and the log's own pruning: each run notes the snapshot xmin, and rows below the xmin noted
 * at least `keepMs` before are deleted. A new leader notes before it deletes (it deletes
 * nothing for its first `keepMs`).
 */
export function createChangeLogPruner(pool: PgPool, keepMs = CHANGE_LOG_KEEP_MS) {
  const noted: { at: number; xmin: string }[] = [];
  return {
    /** `deleted` null: the run failed part way (anything may have been deleted). */
    async afterPrune(now: number, deleted: Record<string, number> | null): Promise<void> {
      if (!deleted) await appendGlobal(pool, 'prune_minutes');
      else if (Object.values(deleted).some((n) => n > 0)) await appendGlobal(pool, MINUTE_TABLES.some((t) => (deleted[t] ?? 0) > 0) ? 'prune_minutes' : 'prune');
      noted.push({ at: now, xmin: (await pool.query<{ x: string }>({ name: 'change_log_xmin', text: SQL.xmin })).rows[0]!.x });
      let below: string | undefined;
      while (noted.length > 1 && noted[0]!.at <= now - keepMs) below = noted.shift()!.xmin;
      if (below !== undefined) await pool.query({ name: 'change_log_prune', text: SQL.prune, values: [below] });
    },
  };
}

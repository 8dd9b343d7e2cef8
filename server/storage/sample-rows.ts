/**
 * The evidence samples' SQL, engine-neutral (`?` placeholders; PostgreSQL numbers them):
 * the read behind `SamplesPart.forKey`, and the bound that keeps a flood of failures from
 * growing the table without limit.
 */
import type { CallSample, WindowEvent } from '@breakerbox/protocol';
import { MINUTE_MS } from '@breakerbox/protocol';
import type { SampleQuery, StoredSample } from './parts/samples.ts';

/**
 * Most samples stored per key and minute, whatever number of instances send them: the rest
 * are dropped at insert (the window's counts still hold every failure).
 */
export const MAX_SAMPLES_PER_KEY_MINUTE = 20;

/** One key's samples, newest first; optional filters bound as NULL when absent. */
export const SAMPLES_FOR_KEY = `SELECT c.ts, v.name AS service, s.instance, c.sample FROM call_samples c
  JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
  WHERE c.key_id = ? AND c.ts >= ? AND c.ts < ?
    AND (CAST(? AS TEXT) IS NULL OR coalesce(c.error_class, 'slow') = ?)
    AND (CAST(? AS TEXT) IS NULL OR v.name = ?)
    AND (CAST(? AS TEXT) IS NULL OR s.instance = ?)
  ORDER BY c.ts DESC, c.id DESC LIMIT ?`;

/**
 * The latest failed samples (slow successes aside) of several keys at once, at most `perKey`
 * each: one query however many keys, its rows bounded by keys × perKey. `keys` placeholders
 * in the key list, then from, to, perKey (bound once: the per-key subquery is correlated).
 */
export function latestFailedSql(keys: number): string {
  // Per key, the newest rows of its (key_id, ts) index are read until `perKey` failed ones are
  // found: the cost follows keys × perKey, not the samples the window holds.
  const list = Array.from({ length: keys }, () => '(CAST(? AS BIGINT))').join(', ');
  return `WITH k(id) AS (VALUES ${list})
  SELECT c.key_id, c.ts, v.name AS service, s.instance, c.sample FROM k
  JOIN call_samples c ON c.id IN (
    SELECT x.id FROM call_samples x WHERE x.key_id = k.id AND x.ts >= ? AND x.ts < ? AND x.error_class IS NOT NULL
    ORDER BY x.ts DESC, x.id DESC LIMIT ?)
  JOIN sources s ON s.id = c.source_id JOIN services v ON v.id = s.service_id
  ORDER BY c.key_id, c.ts DESC, c.id DESC`;
}

/** Rows of `latestFailedSql`, grouped by key, newest first. */
export function latestFailedByKey(rows: { key_id: number; ts: number; service: string; instance: string; sample: string }[]): Map<number, StoredSample[]> {
  const out = new Map<number, StoredSample[]>();
  for (const row of rows) {
    const id = Number(row.key_id);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push(storedSample(row));
  }
  return out;
}

/** The arguments of `SAMPLES_FOR_KEY`, in order. */
export function samplesForKeyArgs(keyId: number, q: SampleQuery): unknown[] {
  const opt = (v: string | undefined) => v ?? null;
  return [keyId, q.from, q.to, opt(q.errorClass), opt(q.errorClass), opt(q.service), opt(q.service), opt(q.instance), opt(q.instance), q.limit];
}

/** A row of `SAMPLES_FOR_KEY` as returned. */
export function storedSample(row: { ts: number; service: string; instance: string; sample: string }): StoredSample {
  return { ts: Number(row.ts), service: row.service, instance: row.instance, sample: JSON.parse(row.sample) as CallSample };
}

/** The columns of one sample's row (key and source ids aside), in table order. */
export function sampleColumns(s: CallSample): [number, string | null, number | null, string | null, string] {
  return [s.ts, s.error_class ?? null, s.status ?? null, s.upstream_request_id ?? null, JSON.stringify(s)];
}

/** The minute `[start, end)` a sample's bound counts in. */
export function sampleMinute(ts: number): [number, number] {
  const start = ts - (ts % MINUTE_MS);
  return [start, start + MINUTE_MS];
}

/**
 * The samples of one write, grouped by key and minute, so the bound costs one count per
 * group instead of one per sample. Each group keeps at most the bound, in arrival order.
 */
export class SampleGroups {
  private readonly groups = new Map<string, { keyId: number; minute: number; rows: [number, ...ReturnType<typeof sampleColumns>][] }>();

  add(keyId: number, sourceId: number, s: CallSample): void {
    const [minute] = sampleMinute(s.ts);
    const id = `${keyId}:${minute}`;
    let g = this.groups.get(id);
    if (!g) this.groups.set(id, (g = { keyId, minute, rows: [] }));
    if (g.rows.length < MAX_SAMPLES_PER_KEY_MINUTE) g.rows.push([sourceId, ...sampleColumns(s)]);
  }

  /** Each group with the rows to insert once `stored(keyId, minute)` are already kept. */
  *pending(stored: (keyId: number, minute: number) => number): Generator<{ keyId: number; rows: [number, ...ReturnType<typeof sampleColumns>][] }> {
    for (const g of this.groups.values()) {
      const room = MAX_SAMPLES_PER_KEY_MINUTE - stored(g.keyId, g.minute);
      if (room > 0) yield { keyId: g.keyId, rows: g.rows.slice(0, room) };
    }
  }
}

/** The samples a window carries (none for most windows). */
export const samplesOf = (e: WindowEvent): readonly CallSample[] => e.samples ?? [];

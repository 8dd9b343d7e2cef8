/**
 * The providers' deprecation signals per key (issue 28, `provider_signals`): the SQL,
 * engine-neutral (`?` placeholders; PostgreSQL numbers them), and the per-key merge of a
 * transaction's windows, so each key's row is upserted once per transaction (PostgreSQL
 * refuses to touch a row twice in one statement, and once is enough on SQLite too).
 */
import type { WindowEvent } from '@breakerbox/protocol';
import type { ProviderSignal } from './parts/telemetry.ts';

/**
 * One key's row: the latest window's dates replace the stored ones (a provider that stops
 * sending `Sunset` has withdrawn it), `responses` adds up, the span widens.
 */
export const SIGNAL_UPSERT = `INSERT INTO provider_signals (key_id, deprecation_at, sunset_at, responses, first_seen, last_seen)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (key_id) DO UPDATE SET
    deprecation_at = CASE WHEN EXCLUDED.last_seen >= provider_signals.last_seen THEN EXCLUDED.deprecation_at ELSE provider_signals.deprecation_at END,
    sunset_at = CASE WHEN EXCLUDED.last_seen >= provider_signals.last_seen THEN EXCLUDED.sunset_at ELSE provider_signals.sunset_at END,
    responses = provider_signals.responses + EXCLUDED.responses,
    first_seen = CASE WHEN EXCLUDED.first_seen < provider_signals.first_seen THEN EXCLUDED.first_seen ELSE provider_signals.first_seen END,
    last_seen = CASE WHEN EXCLUDED.last_seen > provider_signals.last_seen THEN EXCLUDED.last_seen ELSE provider_signals.last_seen END`;

/** Every key's signal. */
export const SIGNALS_ALL = 'SELECT key_id, deprecation_at, sunset_at, responses, first_seen, last_seen FROM provider_signals';

/** A row of `SIGNALS_ALL`. */
export interface SignalRow {
  key_id: number;
  deprecation_at: number | string | null;
  sunset_at: number | string | null;
  responses: number | string;
  first_seen: number | string;
  last_seen: number | string;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The rows as the part answers them, by key id. */
export function signalsOf(rows: readonly SignalRow[]): Map<number, ProviderSignal> {
  return new Map(rows.map((r) => [Number(r.key_id), {
    deprecationAt: num(r.deprecation_at), sunsetAt: num(r.sunset_at), responses: Number(r.responses), firstSeen: Number(r.first_seen), lastSeen: Number(r.last_seen),
  }]));
}

/** The windows of one transaction that carried a signal, merged per key id. */
export class SignalAccumulator {
  private readonly byKey = new Map<number, ProviderSignal>();

  /** Adds a window's `deprecation_signal` (if any) for `keyId`. */
  add(keyId: number, e: WindowEvent): void {
    const s = e.deprecation_signal;
    if (!s) return;
    const prev = this.byKey.get(keyId);
    const latest = !prev || e.end >= prev.lastSeen;
    this.byKey.set(keyId, {
      deprecationAt: latest ? (s.deprecation_at ?? null) : prev.deprecationAt,
      sunsetAt: latest ? (s.sunset_at ?? null) : prev.sunsetAt,
      responses: (prev?.responses ?? 0) + s.responses,
      firstSeen: Math.min(prev?.firstSeen ?? e.end, e.end),
      lastSeen: Math.max(prev?.lastSeen ?? e.end, e.end),
    });
  }

  /** The upsert arguments, one list per key, in key order (PostgreSQL locks rows in one order). */
  rows(): unknown[][] {
    return [...this.byKey].sort((a, b) => a[0] - b[0]).map(([k, s]) => [k, s.deprecationAt, s.sunsetAt, s.responses, s.firstSeen, s.lastSeen]);
  }
}

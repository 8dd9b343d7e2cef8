/** A key as both engines store it in the `keys` table, and back. */
import type { BreakerKey } from '@breakerbox/protocol';

/** The database form of a key's optional region: '' for none, so the unique index holds. */
export const regionColumn = (key: BreakerKey): string => key.region ?? '';

/** Turns a `keys` row back into a key, exactly as it arrived. */
export function keyFromRow(row: { provider: string; endpoint: string; model: string; region: string }): BreakerKey {
  const key: BreakerKey = { provider: row.provider, endpoint: row.endpoint, model: row.model };
  if (row.region !== '') key.region = row.region;
  return key;
}

/** Most key ids held in memory; past it the oldest cached is dropped (and read again when it returns). */
export const KEY_CACHE_MAX = 50_000;

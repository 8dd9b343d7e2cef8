import type { Db } from './database.ts';
import type { ShadowPart } from '../parts/shadow.ts';
import type { SyncPart } from './sync-part.ts';
import { SHADOW_WINDOWS, shadowWindowsArgs, sumShadowRows, type ShadowRow } from '../shadow-rows.ts';

/** Creates the shadow window reads on SQLite (the SQL: server/storage/shadow-rows.ts). */
export function createShadowReads(db: Db): SyncPart<ShadowPart> {
  const windows = db.prepare(SHADOW_WINDOWS);
  return {
    pairs(from, to, keyId) {
      return sumShadowRows(windows.all(...shadowWindowsArgs(from, to, keyId)) as ShadowRow[]);
    },
  };
}

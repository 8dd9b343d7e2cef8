import type { Db } from './database.ts';
import type { SamplesPart } from '../parts/samples.ts';
import type { SyncPart } from './sync-part.ts';
import { SAMPLES_FOR_KEY, latestFailedByKey, latestFailedSql, samplesForKeyArgs, storedSample } from '../sample-rows.ts';

/** Creates the evidence sample reads on SQLite (the SQL: server/storage/sample-rows.ts). */
export function createSampleReads(db: Db): SyncPart<SamplesPart> {
  const forKey = db.prepare(SAMPLES_FOR_KEY);
  return {
    forKey(keyId, q) {
      return (forKey.all(...samplesForKeyArgs(keyId, q)) as { ts: number; service: string; instance: string; sample: string }[]).map(storedSample);
    },
    latestFailed(keyIds, from, to, perKey) {
      if (keyIds.length === 0 || perKey <= 0) return new Map();
      // Prepared per call: the key list's length varies, and a cache by length would grow.
      const rows = db.prepare(latestFailedSql(keyIds.length)).all(...keyIds, from, to, perKey);
      return latestFailedByKey(rows as Parameters<typeof latestFailedByKey>[0]);
    },
  };
}

import type { Db } from './database.ts';
import type { SamplesPart } from '../parts/samples.ts';
import type { SyncPart } from './sync-part.ts';
import { SAMPLES_FOR_KEY, samplesForKeyArgs, storedSample } from '../sample-rows.ts';

/** Creates the evidence sample reads on SQLite (the SQL: server/storage/sample-rows.ts). */
export function createSampleReads(db: Db): SyncPart<SamplesPart> {
  const forKey = db.prepare(SAMPLES_FOR_KEY);
  return {
    forKey(keyId, q) {
      return (forKey.all(...samplesForKeyArgs(keyId, q)) as { ts: number; service: string; instance: string; sample: string }[]).map(storedSample);
    },
  };
}

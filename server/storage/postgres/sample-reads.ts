import type { SamplesPart } from '../parts/samples.ts';
import { SAMPLES_FOR_KEY, latestFailedByKey, latestFailedSql, samplesForKeyArgs, storedSample } from '../sample-rows.ts';
import type { PgPool } from './pool.ts';

/** `SAMPLES_FOR_KEY` with its `?` numbered `$1`, `$2`, … */
const TEXT = ((): string => {
  let n = 0;
  return SAMPLES_FOR_KEY.replace(/\?/g, () => `$${++n}`);
})();

/** Creates the evidence sample reads on PostgreSQL (the SQL: server/storage/sample-rows.ts). */
export function createPostgresSampleReads(pool: PgPool): SamplesPart {
  return {
    async forKey(keyId, q) {
      const rows = (await pool.query<{ ts: number; service: string; instance: string; sample: string }>({
        name: 'samples_for_key', text: TEXT, values: samplesForKeyArgs(keyId, q),
      })).rows;
      return rows.map(storedSample);
    },
    async latestFailed(keyIds, from, to, perKey) {
      if (keyIds.length === 0 || perKey <= 0) return new Map();
      let n = 0;
      const text = latestFailedSql(keyIds.length).replace(/\?/g, () => `$${++n}`);
      const rows = (await pool.query<Parameters<typeof latestFailedByKey>[0][number]>({ text, values: [...keyIds, from, to, perKey] })).rows;
      return latestFailedByKey(rows);
    },
  };
}

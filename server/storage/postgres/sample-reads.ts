import type { SamplesPart } from '../parts/samples.ts';
import { SAMPLES_FOR_KEY, samplesForKeyArgs, storedSample } from '../sample-rows.ts';
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
  };
}

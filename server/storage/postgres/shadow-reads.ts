import type { ShadowPart } from '../parts/shadow.ts';
import { SHADOW_WINDOWS, shadowWindowsArgs, sumShadowRows, type ShadowRow } from '../shadow-rows.ts';
import type { PgPool } from './pool.ts';

/** `SHADOW_WINDOWS` with its `?` numbered `$1`, `$2`, … */
const TEXT = ((): string => {
  let n = 0;
  return SHADOW_WINDOWS.replace(/\?/g, () => `$${++n}`);
})();

/** Creates the shadow window reads on PostgreSQL (the SQL: server/storage/shadow-rows.ts). */
export function createPostgresShadowReads(pool: PgPool): ShadowPart {
  return {
    async pairs(from, to, keyId) {
      const rows = (await pool.query<ShadowRow>({ name: 'shadow_windows', text: TEXT, values: shadowWindowsArgs(from, to, keyId) })).rows;
      return sumShadowRows(rows);
    },
  };
}

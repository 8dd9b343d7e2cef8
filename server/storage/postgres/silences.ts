import type { Matcher, SilenceRecord, SilencesPart } from '../parts/silences.ts';
import type { PgPool } from './pool.ts';

type Row = Omit<SilenceRecord, 'matchers'> & { matchers: string };
const record = (row: Row): SilenceRecord => ({ ...row, matchers: JSON.parse(row.matchers) as Matcher[] });

/** Silences on PostgreSQL: made through any collector, applied by whichever one leads. */
export function createPostgresSilences(pool: PgPool): SilencesPart {
  const get = async (id: string) => {
    const row = (await pool.query<Row>({ name: 'silence_get', text: 'SELECT * FROM silences WHERE id = $1', values: [id] })).rows[0];
    return row ? record(row) : null;
  };
  return {
    async insert(s) {
      await pool.query({
        name: 'silence_insert',
        text: 'INSERT INTO silences (id, matchers, starts_at, ends_at, comment, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        values: [s.id, JSON.stringify(s.matchers), s.starts_at, s.ends_at, s.comment, s.created_by, s.created_at],
      });
    },
    async listEndingAfter(endsAfter) {
      return (await pool.query<Row>({ name: 'silence_list', text: 'SELECT * FROM silences WHERE ends_at >= $1 ORDER BY ends_at DESC', values: [endsAfter] })).rows.map(record);
    },
    async active(now) {
      return (await pool.query<Row>({ name: 'silence_active', text: 'SELECT * FROM silences WHERE starts_at <= $1 AND ends_at > $1', values: [now] })).rows.map(record);
    },
    get,
    async expire(id, now) {
      const { rows } = await pool.query<Row>({
        name: 'silence_expire',
        // One statement: the row as stored afterwards, whether or not it still ended later.
        text: `WITH changed AS (UPDATE silences SET ends_at = $2 WHERE id = $1 AND ends_at > $2 RETURNING *)
          SELECT * FROM changed UNION ALL SELECT * FROM silences WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM changed)`,
        values: [id, now],
      });
      return rows[0] ? record(rows[0]) : null;
    },
  };
}

import type { Db } from './database.ts';
import type { Matcher, SilenceRecord, SilencesPart } from '../parts/silences.ts';
import type { SyncPart } from './sync-part.ts';

type Row = Omit<SilenceRecord, 'matchers'> & { matchers: string };
const record = (row: Row): SilenceRecord => ({ ...row, matchers: JSON.parse(row.matchers) as Matcher[] });

/** Creates the silences part over the SQLite connection. */
export function createSilenceStore(db: Db): SyncPart<SilencesPart> {
  const insert = db.prepare('INSERT INTO silences (id, matchers, starts_at, ends_at, comment, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const listStmt = db.prepare('SELECT * FROM silences WHERE ends_at >= ? ORDER BY ends_at DESC');
  const activeStmt = db.prepare('SELECT * FROM silences WHERE starts_at <= ? AND ends_at > ?');
  const one = db.prepare('SELECT * FROM silences WHERE id = ?');
  const expireStmt = db.prepare('UPDATE silences SET ends_at = ? WHERE id = ? AND ends_at > ?');
  const get = (id: string) => {
    const row = one.get(id) as Row | undefined;
    return row ? record(row) : null;
  };
  return {
    insert(s) {
      insert.run(s.id, JSON.stringify(s.matchers), s.starts_at, s.ends_at, s.comment, s.created_by, s.created_at);
    },
    listEndingAfter: (endsAfter) => (listStmt.all(endsAfter) as Row[]).map(record),
    active: (now) => (activeStmt.all(now, now) as Row[]).map(record),
    get,
    expire(id, now) {
      if (!one.get(id)) return null;
      expireStmt.run(now, id, now);
      return get(id);
    },
  };
}

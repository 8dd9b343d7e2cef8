import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../server/package-root.ts';

const SERVER = join(packageRoot(), 'server');

/** Every TypeScript file under `server/`, as paths relative to the repository. */
function serverFiles(dir = SERVER): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return serverFiles(path);
    return e.name.endsWith('.ts') ? [relative(packageRoot(), path)] : [];
  });
}

/** What only `server/storage/` may contain: a driver, prepared statements, SQL text. */
const SQL_SIGNS: [string, RegExp][] = [
  ['imports better-sqlite3', /from\s+['"]better-sqlite3['"]/],
  ['imports a PostgreSQL client', /from\s+['"](pg|postgres)['"]/],
  ['prepares a statement', /\.prepare\s*[<(]/],
  ['runs a pragma', /\.pragma\s*\(/],
  ['executes SQL', /\bdb\.exec\s*\(/],
  ['writes SQL', /\b(SELECT\s+(\*|DISTINCT|COUNT|SUM|MAX|MIN|[a-z_]+\s*(,|FROM))|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+[a-z_]+\s+SET|CREATE\s+(TABLE|INDEX|TRIGGER))/],
];

/** The one place outside storage allowed to open an engine itself: the read worker's read-only SQLite storage. */
const ENGINE_IMPORT_ALLOWED = new Set(['server/query/read-worker-main.ts']);

describe('the storage boundary', () => {
  it('keeps every driver, prepared statement and SQL text inside server/storage/', () => {
    const files = serverFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of files) {
      if (file.startsWith('server/storage/')) continue;
      const text = readFileSync(join(packageRoot(), file), 'utf8');
      for (const [what, sign] of SQL_SIGNS) if (sign.test(text)) offenders.push(`${file} ${what}`);
      if (/from\s+['"][./]*\/?storage\/sqlite\//.test(text) && !ENGINE_IMPORT_ALLOWED.has(file)) offenders.push(`${file} imports the SQLite engine directly`);
    }
    expect(offenders).toEqual([]);
  });

  it('would name a file that wrote SQL outside storage', () => {
    const sign = SQL_SIGNS.find(([what]) => what === 'writes SQL')![1];
    expect(sign.test("db.prepare('SELECT key_id, location FROM probe_minutes')")).toBe(true);
    expect(sign.test('DELETE FROM sessions WHERE expires_at <= ?')).toBe(true);
    expect(sign.test('select the worst key, then update the board')).toBe(false);
  });
});

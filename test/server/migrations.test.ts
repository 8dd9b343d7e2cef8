import { cpSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { MIGRATIONS_DIR } from '../../server/storage/migration-files.ts';
import { applyMigrations, migrationsUpToDate } from '../../server/storage/sqlite/migrations.ts';
import { tempDir } from './helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function setup() {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const dir = join(tmp.dir, 'migrations');
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const db = openDatabase(join(tmp.dir, 'db.sqlite'));
  cleanups.unshift(() => db.close());
  return { db, dir };
}

describe('migrations', () => {
  it('applies every file in order once and records it with a checksum', () => {
    const { db, dir } = setup();
    const first = applyMigrations(db, dir);
    expect(first.applied[0]).toBe('001-initial.sql');
    const rows = db.prepare('SELECT id, name, checksum FROM schema_migrations ORDER BY id').all() as { checksum: string }[];
    expect(rows.length).toBe(first.applied.length);
    expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
    const second = applyMigrations(db, dir);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(rows.length);
    expect(migrationsUpToDate(db, dir)).toBe(true);
  });

  it('refuses to start when an applied migration file has changed', () => {
    const { db, dir } = setup();
    applyMigrations(db, dir);
    const file = join(dir, '001-initial.sql');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n-- edited after it was applied\n`);
    expect(() => applyMigrations(db, dir)).toThrowError(/001-initial\.sql.*restore the original file/);
  });

  it('applies a new numbered file after the ones already applied', () => {
    const { db, dir } = setup();
    applyMigrations(db, dir);
    writeFileSync(join(dir, '900-extra.sql'), 'CREATE TABLE extra (id INTEGER PRIMARY KEY);');
    expect(migrationsUpToDate(db, dir)).toBe(false);
    expect(applyMigrations(db, dir).applied).toEqual(['900-extra.sql']);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").get()).toEqual({ name: 'extra' });
  });

  it('rolls back a failing migration entirely and records nothing for it', () => {
    const { db, dir } = setup();
    applyMigrations(db, dir);
    writeFileSync(join(dir, '901-broken.sql'), 'CREATE TABLE half (id INTEGER); CREATE TABLE half (id INTEGER);');
    expect(() => applyMigrations(db, dir)).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    expect(db.prepare("SELECT COUNT(*) AS n FROM schema_migrations WHERE name = '901-broken.sql'").get()).toEqual({ n: 0 });
  });
});
